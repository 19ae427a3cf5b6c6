import { ToolSchema } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { leanInputSchema } from './lean-schema.js';

describe('leanInputSchema', () => {
  it('drops guard rails and empty words, keeps what a model plans a call around', () => {
    const schema = ToolSchema.object({
      path: z.string().min(1).max(4096).describe('Workspace path.'),
      operation: z.enum(['copy', 'move']).describe('Operation.'),
      code: z
        .string()
        .min(2)
        .max(8)
        .regex(/^[a-z]+$/)
        .describe('Short code.'),
      limit: z.number().int().min(1).max(5000).default(500).describe('Most paths.'),
      recursive: z.boolean().default(false).describe('List subfolders.'),
      clear: z.boolean().default(true).describe('Replace content.'),
      tags: z.array(z.string().max(64)).max(20).default([]).describe('Labels.'),
      rows: z.array(z.string()).max(10_000).optional().describe('Rows to add.'),
    });
    expect(leanInputSchema(schema.jsonSchema)).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Workspace path.' },
        operation: { type: 'string', enum: ['copy', 'move'] },
        code: { type: 'string', minLength: 2, pattern: '^[a-z]+$', description: 'Short code.' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 5000,
          default: 500,
          description: 'Most paths.',
        },
        recursive: { type: 'boolean', description: 'List subfolders.' },
        clear: { type: 'boolean', default: true, description: 'Replace content.' },
        tags: { type: 'array', maxItems: 20, items: { type: 'string' }, description: 'Labels.' },
        rows: { type: 'array', items: { type: 'string' }, description: 'Rows to add.' },
      },
      required: ['path', 'operation', 'code'],
    });
  });

  it('keeps an argument whose name is a schema keyword, and enum and const values', () => {
    const schema = ToolSchema.object({
      maxLength: z.number().int().describe('Longest line.'),
      default: z.string().optional().describe('Default.'),
      mode: z.literal('').describe('Empty mode.'),
    });
    const lean = leanInputSchema(schema.jsonSchema) as { properties: Record<string, object> };
    expect(Object.keys(lean.properties)).toEqual(['maxLength', 'default', 'mode']);
    expect(lean.properties.maxLength).toEqual({ type: 'integer', description: 'Longest line.' });
    expect(lean.properties.default).toEqual({ type: 'string' });
    expect(lean.properties.mode).toMatchObject({ const: '' });
  });
});
