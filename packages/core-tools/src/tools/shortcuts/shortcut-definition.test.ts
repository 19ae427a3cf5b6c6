import { defineTool, ToolHints, ToolRegistry, ToolSchema } from '@toolsys/core-tool-registry';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseShortcutDefinition, placeholdersOf, renderTemplate } from './shortcut-definition.js';

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  for (const [id, category, risk, annotations] of [
    ['read_file', 'file', 'LOW', ToolHints.readOnly],
    ['write_file', 'file', 'MEDIUM', { ...ToolHints.destructive, idempotentHint: true }],
    [
      'app_uninstall',
      'app',
      'HIGH',
      {
        ...ToolHints.destructive,
        idempotentHint: true,
        openWorldHint: true,
        sensitiveAction: true,
      },
    ],
  ] as const) {
    tools.register(
      defineTool({
        id,
        description: 'fixture',
        inputSchema: ToolSchema.object({ path: z.string().optional() }),
        metadata: { category, risk, annotations },
        execute: () => 'ok',
      }),
    );
  }
  return tools;
}

const valid = {
  id: 'shortcut.copy_note',
  description: 'Copies a note.',
  preconditions: ['the note exists'],
  params: [
    { name: 'from', type: 'string', description: 'source' },
    { name: 'count', type: 'integer', description: 'lines', default: 3 },
  ],
  steps: [
    { tool: 'read_file', args: { path: '{from}', limit: '{count}' } },
    { tool: 'write_file', args: '{"path": "copy-{from}", "content": "{0}", "n": {count}}' },
  ],
};

function failureOf(raw: unknown) {
  const parsed = parseShortcutDefinition(raw, { registry: registry() });
  if (parsed.ok) throw new Error('expected a failure');
  return parsed.failure.error;
}

describe('parseShortcutDefinition', () => {
  it('accepts a valid definition and inherits the worst step risk', () => {
    const parsed = parseShortcutDefinition(valid, { registry: registry() });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.definition.risk).toBe('MEDIUM');
    expect(parsed.definition.params.map((param) => param.name)).toEqual(['from', 'count']);
  });

  it('a shortcut containing app_uninstall is HIGH risk', () => {
    const parsed = parseShortcutDefinition(
      {
        ...valid,
        steps: [...valid.steps, { tool: 'app_uninstall', args: { path: '{from}' } }],
      },
      { registry: registry() },
    );
    expect(parsed.ok && parsed.definition.risk).toBe('HIGH');
  });

  it.each([
    [{ ...valid, id: 'copy_note' }, 'id'],
    [{ ...valid, description: '' }, 'description'],
    [{ ...valid, preconditions: [1] }, 'preconditions.0'],
    [{ ...valid, params: [{ name: '1x', type: 'string' }] }, 'params.0.name'],
    [{ ...valid, params: [...valid.params, { name: 'from', type: 'string' }] }, 'params.2.name'],
    [{ ...valid, params: [{ name: 'from', type: 'date' }] }, 'params.0.type'],
    [{ ...valid, params: [{ name: 'from', type: 'number', default: 'x' }] }, 'params.0.default'],
    [{ ...valid, steps: [] }, 'steps'],
    [{ ...valid, steps: Array.from({ length: 17 }, () => valid.steps[0]) }, 'steps'],
    [{ ...valid, steps: [{ tool: 'rm_rf', args: {} }] }, 'steps.0.tool'],
    [{ ...valid, steps: [{ tool: 'tool_batch_run', args: {} }] }, 'steps.0.tool'],
    [
      { ...valid, steps: [{ tool: 'read_file', args: { path: '{from}{oops}', n: '{count}' } }] },
      'steps.0.args',
    ],
    [
      { ...valid, steps: [{ tool: 'read_file', args: { path: '{from} {1}', n: '{count}' } }] },
      'steps.0.args',
    ],
    [{ ...valid, steps: [{ tool: 'read_file', args: '{"path": {from} {count}' }] }, 'steps.0.args'],
  ])('refuses a bad definition naming the field (%#)', (raw, field) => {
    const error = failureOf(raw);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.field).toBe(field);
    expect(error.message.startsWith(`${field}: `)).toBe(true);
  });

  it('refuses a dead parameter (declared, never used)', () => {
    const error = failureOf({ ...valid, steps: [{ tool: 'read_file', args: { path: '{from}' } }] });
    expect(error.field).toBe('params.1.name');
    expect(error.message).toBe(
      'params.1.name: "count" is declared but no step uses {count}; remove it or use it',
    );
  });

  it('refuses an undeclared placeholder naming it', () => {
    const error = failureOf({
      ...valid,
      steps: [{ tool: 'read_file', args: { path: '{from}/{dir}', n: '{count}' } }],
    });
    expect(error.message).toContain('placeholder {dir} is not a declared parameter');
  });
});

describe('renderTemplate (JSON-aware substitution)', () => {
  it('escapes strings inside literals, writes numbers bare, keeps step references', () => {
    const rendered = renderTemplate(
      '{"path": "a-{name}", "n": {count}, "whole": "{count}", "ref": "{0}", "bare": {0}, "lit": "{{name}}", "q": "\\\\d{{3}}"}',
      {
        name: 'he said "hi"\n',
        count: 3,
      },
    );
    expect(rendered).toEqual({
      ok: true,
      args: {
        path: 'a-he said "hi"\n',
        n: 3,
        whole: 3,
        ref: '{0}',
        bare: '{0}',
        lit: '{name}',
        q: '\\d{{3}}',
      },
    });
  });

  it('lists placeholders but not literals', () => {
    expect(placeholdersOf('{"a": "{x} {{y}} {2}"}')).toEqual(['x', '2']);
  });

  it('always yields valid JSON whose values round-trip, for any string and number', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        (text, number, flag) => {
          const rendered = renderTemplate(
            '{"a": "{text}", "b": "x{text}y", "c": {number}, "d": "{flag}", "e": {text}}',
            { text, number, flag },
          );
          expect(rendered.ok).toBe(true);
          if (!rendered.ok) return;
          expect(rendered.args).toEqual({
            a: text,
            b: `x${text}y`,
            c: JSON.parse(JSON.stringify(number)),
            d: flag,
            e: text,
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
