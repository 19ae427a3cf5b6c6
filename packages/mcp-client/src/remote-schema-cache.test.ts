import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolSchema } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { compileQuickCheck, RemoteSchemaCache } from './remote-schema-cache.js';

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
  it('the quick check never accepts what the validator refuses', () => {
    for (const [name, schema] of Object.entries(SCHEMAS)) {
      const quick = compileQuickCheck(schema);
      expect(quick, name).toBeDefined();
      const validator = ToolSchema.fromRendered(schema);
      INPUTS.forEach((input, index) => {
        const args = input as Record<string, unknown>;
        if (quick?.(args)) expect(validator.parse(args).ok, `${name} input ${index}`).toBe(true);
      });
    }
  });

  it('accepts conforming arguments quickly and reports failures as the validator does', () => {
    const cache = new RemoteSchemaCache();
    const tool = { name: 'echo', inputSchema: SCHEMAS.echo } as Tool;
    expect(compileQuickCheck(SCHEMAS.echo)?.({ message: 'hi' })).toBe(true);
    expect(cache.check(tool, { message: 'hi' })).toBeUndefined();
    const failure = cache.check(tool, { message: 3 });
    expect(failure).toEqual(cache.get(tool).parse({ message: 3 }).ok ? undefined : failure);
    expect(failure?.error.code).toBe('INVALID_ARGUMENT');
    expect(failure?.error.field).toBe('message');
  });

  it('leaves schemas with other keywords to the validator', () => {
    expect(
      compileQuickCheck({ type: 'object', properties: { n: { type: 'number', minimum: 1 } } }),
    ).toBeUndefined();
    expect(
      compileQuickCheck({ type: 'object', properties: { s: { type: 'string', enum: ['a'] } } }),
    ).toBeUndefined();
    expect(compileQuickCheck({ type: 'object', additionalProperties: false })).toBeUndefined();
    expect(compileQuickCheck({ type: 'object', required: ['missing'] })).toBeUndefined();
  });
});
