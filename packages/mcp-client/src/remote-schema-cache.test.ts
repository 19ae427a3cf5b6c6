import type { Tool } from '@modelcontextprotocol/client';
import { ToolSchema } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { RemoteSchemaCache } from './remote-schema-cache.js';

const SCHEMAS: Record<string, unknown> = {
  echo: {
    type: 'object',
    properties: { message: { type: 'string', description: 'Message to echo' } },
    required: ['message'],
    $schema: 'http://json-schema.org/draft-07/schema#',
  },
  sum: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'integer' }, flag: { type: 'boolean' } },
    required: ['a'],
  },
  empty: { type: 'object', properties: {} },
};

const INPUTS: unknown[] = [
  {},
  { message: 'hi' },
  { message: '' },
  { message: 3 },
  { message: undefined },
  { message: null },
  { message: 'hi', extra: [1, 2] },
  { a: 1 },
  { a: 1.5, b: 2 },
  { a: 1, b: 2.5 },
  { a: Number.NaN },
  { a: Number.POSITIVE_INFINITY },
  { a: 1, b: 2 ** 60 },
  { a: 1, flag: 'yes' },
  { a: 1, flag: false },
  { a: '1' },
  { toString: 'x' },
];

describe('RemoteSchemaCache', () => {
  it('decides every input as the imported validator does, on its fast path', () => {
    const cache = new RemoteSchemaCache();
    for (const [name, schema] of Object.entries(SCHEMAS)) {
      const tool = { name, inputSchema: schema } as Tool;
      expect(cache.get(tool).hasFastPath, name).toBe(true);
      const validator = ToolSchema.fromRendered(schema);
      INPUTS.forEach((input, index) => {
        const args = input as Record<string, unknown>;
        expect(cache.check(tool, args) === undefined, `${name} input ${index}`).toBe(
          validator.parse(args).ok,
        );
      });
    }
  });

  it('accepts conforming arguments and reports failures as the validator does', () => {
    const cache = new RemoteSchemaCache();
    const tool = { name: 'echo', inputSchema: SCHEMAS.echo } as Tool;
    expect(cache.check(tool, { message: 'hi' })).toBeUndefined();
    const failure = cache.check(tool, { message: 3 });
    expect(failure).toEqual(cache.get(tool).parse({ message: 3 }).ok ? undefined : failure);
    expect(failure?.error.code).toBe('INVALID_ARGUMENT');
    expect(failure?.error.field).toBe('message');
  });

  it('enforces schemas with other keywords too', () => {
    const cache = new RemoteSchemaCache();
    const tool = {
      name: 'bounded',
      inputSchema: { type: 'object', properties: { n: { type: 'number', minimum: 1 } } },
    } as Tool;
    expect(cache.check(tool, { n: 2 })).toBeUndefined();
    expect(cache.check(tool, { n: 0 })?.error.field).toBe('n');
  });
});
