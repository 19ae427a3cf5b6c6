import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { renderResult } from './tool-result.js';
import { ToolSchema } from './tool-schema.js';

describe('ToolSchema DSL', () => {
  const schema = ToolSchema.object({
    path: z.string().min(1).describe('File path inside the workspace.'),
    limit: z.number().int().min(1).max(100).default(10).describe('How many lines.'),
    mode: z.enum(['text', 'base64']).optional().describe('Encoding.'),
    tags: z.array(z.string()).optional(),
  });

  it('renders the declaration as JSON Schema', () => {
    expect(schema.jsonSchema).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path inside the workspace.' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 100,
          default: 10,
          description: 'How many lines.',
        },
        mode: { type: 'string', enum: ['text', 'base64'], description: 'Encoding.' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['path'],
    });
  });

  it('validates with the same declaration: defaults applied, unknown fields tolerated', () => {
    expect(schema.parse({ path: 'a.txt', junk: true })).toEqual({
      ok: true,
      value: { path: 'a.txt', limit: 10, junk: true },
    });
  });

  it('round-trips: what the rendered schema allows, the validator accepts', () => {
    const rendered = ToolSchema.fromRendered(schema.jsonSchema);
    const args = { path: 'x', limit: 5, mode: 'text', tags: ['a'] };
    expect(rendered.parse(args).ok).toBe(true);
    expect(schema.parse(args).ok).toBe(true);
    expect(rendered.parse({ path: 'x', limit: 500 }).ok).toBe(false);
    expect(schema.parse({ path: 'x', limit: 500 }).ok).toBe(false);
  });

  it('names the field path of a missing argument', () => {
    const result = schema.parse({});
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.error.field).toBe('path');
    expect(renderResult(result.failure)).toBe(
      'Error: [INVALID_ARGUMENT] path: required (expected string)\nNext: Fix the arguments and retry.',
    );
  });

  it('names nested paths and enforces declared constraints', () => {
    const nested = ToolSchema.object({
      steps: z.array(z.object({ args: z.object({ path: z.string() }) })),
    });
    const result = nested.parse({ steps: [{ args: { path: 'a' } }, { args: { path: 3 } }] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.error.field).toBe('steps.1.args.path');
    expect(result.failure.error.message).toBe(
      'steps.1.args.path: expected string, received number',
    );
    const bounded = schema.parse({ path: 'a', limit: 0 });
    expect(bounded.ok ? undefined : bounded.failure.error.field).toBe('limit');
  });
});

describe('ToolSchema.fromRendered', () => {
  it('imports a hand-written v1 schema leniently and validates with it', () => {
    const schema = ToolSchema.fromRendered(
      '{"type":"object","properties":{"url":{"type":"string"},"retries":{"type":"integer","minimum":0}},"required":["url"]}',
    );
    expect(schema.isValidated).toBe(true);
    expect(schema.parse({ url: 'https://example.com', extra: 1 }).ok).toBe(true);
    const bad = schema.parse({ retries: -1 });
    expect(bad.ok).toBe(false);
  });

  it('adds type object when only properties are given', () => {
    const schema = ToolSchema.fromRendered({ properties: { a: { type: 'string' } } });
    expect(schema.jsonSchema).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
    expect(schema.parse({ a: 1 }).ok).toBe(false);
  });

  it('still registers an unparseable schema, unvalidated', () => {
    for (const broken of ['{not json', { type: 'bogus' }, { $ref: '#/nowhere' }, 42, null]) {
      const schema = ToolSchema.fromRendered(broken);
      expect(schema.isValidated).toBe(false);
      expect(schema.parse({ anything: true })).toEqual({ ok: true, value: { anything: true } });
      expect(schema.jsonSchema).toHaveProperty('type');
    }
  });
});

describe('ToolSchema.fromRendered with regular expressions', () => {
  const catastrophic = {
    type: 'object',
    properties: {
      word: { type: 'string', pattern: '^(a+)+$', maxLength: 100 },
      pattern: { type: 'string' },
      tags: { type: 'array', items: { type: 'string', pattern: '^(a|aa)+$' } },
    },
    required: ['word'],
  };

  it('shows patterns to the model but does not run them on arguments', () => {
    const schema = ToolSchema.fromRendered(catastrophic);
    expect(schema.jsonSchema).toEqual(catastrophic);
    const hostile = `${'a'.repeat(40)}!`;
    expect(schema.parse({ word: hostile, tags: [hostile] })).toEqual({
      ok: true,
      value: { word: hostile, tags: [hostile] },
    });
  });

  it('still enforces every other constraint, and keeps a property named "pattern"', () => {
    const schema = ToolSchema.fromRendered(catastrophic);
    const tooLong = schema.parse({ word: 'a'.repeat(101) });
    expect(tooLong.ok).toBe(false);
    expect(schema.parse({ word: 'a', pattern: 3 }).ok).toBe(false);
    expect(schema.parse({}).ok).toBe(false);
  });

  it('allows names a patternProperties entry would match although other extras are refused', () => {
    const schema = ToolSchema.fromRendered({
      type: 'object',
      properties: { a: { type: 'string' } },
      patternProperties: { '^(x+)+-$': { type: 'number' } },
      additionalProperties: false,
    });
    expect(schema.parse({ a: 'ok', 'xxxx-': 1 }).ok).toBe(true);
  });
});
