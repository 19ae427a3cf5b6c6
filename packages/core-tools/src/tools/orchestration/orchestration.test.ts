import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createToolExecutor,
  defineTool,
  NOT_EXECUTED_TEXT,
  RiskAwareToolGate,
  renderResult,
  ToolHints,
  ToolPermissionManager,
  ToolRegistry,
  type ToolResult,
  ToolSchema,
  ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import { FakeClock, flushMicrotasks } from '@toolsys/core-tool-registry/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createUtilityTools } from '../utilities/index.js';
import { createOrchestrationTools } from './index.js';

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'toolsys-orchestration-'));
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** A shortcut whose only step deletes the file it is given. */
const CLEANUP_SHORTCUT = {
  id: 'shortcut.cleanup',
  description: 'Deletes a file.',
  params: [{ name: 'path', type: 'string', description: 'file' }],
  steps: [{ tool: 'delete_file', args: { path: '{path}' } }],
};

function setup(options: { deny?: readonly string[] } = {}) {
  const clock = new FakeClock();
  const registry = new ToolRegistry();
  const traces = new ToolTraceRecorder({ clock });
  const permissions = new ToolPermissionManager({
    confirm: async (request) => (options.deny?.includes(request.toolId) ? 'deny' : 'allow_once'),
  });
  const executor = createToolExecutor({
    registry,
    clock,
    traces,
    gate: new RiskAwareToolGate(permissions),
  });
  registry.registerAll(createUtilityTools());
  registry.register(
    defineTool({
      id: 'delete_file',
      description: 'fixture: HIGH risk',
      inputSchema: ToolSchema.object({ path: z.string() }),
      metadata: {
        category: 'file',
        risk: 'HIGH',
        annotations: { ...ToolHints.destructive, idempotentHint: true, sensitiveAction: true },
      },
      execute: ({ path }) => `deleted ${path}`,
    }),
  );
  const shortcutDirectory = join(directory, 'shortcuts');
  registry.registerAll(createOrchestrationTools({ executor, shortcutDirectory, clock }));
  return { clock, registry, executor, traces, shortcutDirectory };
}

describe('wait', () => {
  it('waits the given seconds on the clock', async () => {
    const { executor, clock } = setup();
    let result: ToolResult | undefined;
    void executor.execute('wait', { seconds: 2 }).then((value) => {
      result = value;
    });
    await clock.advanceAsync(1_999);
    expect(result).toBeUndefined();
    await clock.advanceAsync(1);
    expect(result && renderResult(result)).toBe('Waited 2 s.');
  });

  it('ends early when cancelled', async () => {
    const { executor } = setup();
    const controller = new AbortController();
    const pending = executor.execute('wait', { seconds: 300 }, { signal: controller.signal });
    await flushMicrotasks();
    controller.abort();
    const result = await pending;
    expect(!result.ok && result.error.details).toEqual({ cancelled: true });
  });

  it('refuses more than 300 s naming the field', async () => {
    const { executor } = setup();
    const result = await executor.execute('wait', { seconds: 301 });
    expect(!result.ok && result.error.field).toBe('seconds');
  });
});

describe('json_transform', () => {
  const input = {
    items: [
      { name: 'b', age: 40, tags: ['x'] },
      { name: 'a', age: 25, tags: ['y'] },
      { name: 'c', age: 33, tags: ['x'] },
      { name: 'a', age: 52, tags: [] },
    ],
  };

  it('runs a pipeline of get, filter, sort, unique, pick, slice and map', async () => {
    const { executor } = setup();
    const result = await executor.execute('json_transform', {
      input: JSON.stringify(input),
      operations: [
        { op: 'get', path: 'items' },
        { op: 'filter', path: 'age', cmp: 'gt', value: 30 },
        { op: 'sort', path: 'name' },
        { op: 'unique', path: 'name' },
        { op: 'pick', fields: ['name', 'age'] },
        { op: 'slice', start: 0, end: 2 },
      ],
    });
    expect(result.ok && result.data).toEqual({
      result: [
        { name: 'a', age: 52 },
        { name: 'b', age: 40 },
      ],
    });
    const mapped = await executor.execute('json_transform', {
      input,
      operations: [
        { op: 'get', path: 'items' },
        { op: 'filter', path: 'tags', cmp: 'contains', value: 'x' },
        { op: 'map', path: 'name' },
      ],
    });
    expect(renderResult(mapped)).toBe('[\n  "b",\n  "c"\n]');
  });

  it('names the failing operation', async () => {
    const { executor } = setup();
    const result = await executor.execute('json_transform', {
      input,
      operations: [{ op: 'get', path: 'items.9' }],
    });
    expect(!result.ok && result.error.field).toBe('operations.0.path');
    const notArray = await executor.execute('json_transform', {
      input,
      operations: [{ op: 'sort' }],
    });
    expect(!notArray.ok && notArray.error.message).toBe(
      'operations.0: sort needs an array, the value here is object; use get first',
    );
  });

  it('refuses a missing input', async () => {
    const { executor } = setup();
    const result = await executor.execute('json_transform', { operations: [] });
    expect(!result.ok && result.error.field).toBe('input');
  });

  it('refuses an unknown operation naming the path', async () => {
    const { executor } = setup();
    const result = await executor.execute('json_transform', {
      input,
      operations: [{ op: 'explode' }],
    });
    expect(!result.ok && result.error.code).toBe('INVALID_ARGUMENT');
    expect(!result.ok && result.error.field).toBe('operations.0.op');
  });
});

describe('version_compare', () => {
  it('orders by SemVer precedence', async () => {
    const { executor } = setup();
    expect(
      renderResult(await executor.execute('version_compare', { a: '1.10.0', b: '1.9.0' })),
    ).toBe('1.10.0 > 1.9.0 (minor differs)');
    expect(
      renderResult(await executor.execute('version_compare', { a: '1.0.0-rc.1', b: '1.0.0' })),
    ).toBe('1.0.0-rc.1 < 1.0.0 (major differs)');
  });

  it('checks a range', async () => {
    const { executor } = setup();
    const result = await executor.execute('version_compare', {
      a: '1.2.3',
      b: '2.0.0',
      range: '^1.2.0',
    });
    expect(renderResult(result)).toBe(
      '1.2.3 < 2.0.0 (major differs)\n1.2.3 satisfies ^1.2.0\n2.0.0 does not satisfy ^1.2.0',
    );
  });

  it('refuses an invalid version naming the field, unless loose', async () => {
    const { executor } = setup();
    const result = await executor.execute('version_compare', { a: '1.2.3', b: '1.2' });
    expect(!result.ok && result.error.field).toBe('b');
    expect(
      renderResult(
        await executor.execute('version_compare', { a: '1.2.3', b: '1.2', loose: true }),
      ),
    ).toBe('1.2.3 > 1.2.0 (patch differs)');
  });
});

describe('tool_batch_run', () => {
  it('a failing second step leaves the exact Not executed text for the third', async () => {
    const { executor } = setup();
    const result = await executor.execute('tool_batch_run', {
      steps: [
        { tool: 'calculate', args: { expression: '2+3' } },
        { tool: 'calculate', args: { expression: '1/' } },
        { tool: 'calculate', args: { expression: '{0} * 2' } },
      ],
    });
    expect(result.ok).toBe(false);
    const text = renderResult(result);
    expect(text).toContain('[0] calculate: ok\n5');
    expect(text).toContain('[1] calculate: failed\nError: [INVALID_ARGUMENT]');
    expect(text).toContain(`[2] calculate: not executed\n${NOT_EXECUTED_TEXT}`);
  });

  it('passes outputs forward and accepts steps as a JSON string', async () => {
    const { executor } = setup();
    const result = await executor.execute('tool_batch_run', {
      steps: JSON.stringify([
        { tool: 'calculate', args: { expression: '2+3' } },
        { tool: 'calculate', args: { expression: '{0} * 2' } },
      ]),
    });
    expect(renderResult(result)).toBe('[0] calculate: ok\n5\n\n[1] calculate: ok\n10');
  });
});

describe('shortcuts', () => {
  const definition = {
    id: 'shortcut.double',
    description: 'Doubles a number and upper-cases a label.',
    params: [
      { name: 'value', type: 'number', description: 'the number' },
      { name: 'label', type: 'string', description: 'a label' },
    ],
    steps: [
      { tool: 'calculate', args: '{"expression": "{value} * 2"}' },
      { tool: 'text_transform', args: { text: '{label}: {0}', operation: 'upper' } },
    ],
  };

  it('defines, hot-registers, persists and runs a shortcut', async () => {
    const { executor, registry, shortcutDirectory } = setup();
    const defined = await executor.execute('shortcut_define', { definition });
    expect(renderResult(defined)).toBe(
      'Defined shortcut.double (2 steps, LOW risk). Call it as shortcut.double with {value: number, label: string}.',
    );
    expect(registry.get('shortcut.double')?.metadata).toMatchObject({
      category: 'orchestration',
      risk: 'LOW',
    });
    expect(readdirSync(shortcutDirectory)).toEqual(['shortcut.double.json']);
    expect(
      JSON.parse(readFileSync(join(shortcutDirectory, 'shortcut.double.json'), 'utf8')).id,
    ).toBe('shortcut.double');
    const direct = await executor.execute('shortcut.double', { value: 21, label: 'he said "x"' });
    expect(renderResult(direct)).toBe(
      '[0] calculate: ok\n42\n\n[1] text_transform: ok\nHE SAID "X": 42',
    );
    const viaRun = await executor.execute('shortcut_run', {
      id: 'shortcut.double',
      params: { value: 1, label: 'a' },
    });
    expect(renderResult(viaRun)).toContain('A: 2');
  });

  it('registers persisted shortcuts again at start', async () => {
    const first = setup();
    await first.executor.execute('shortcut_define', { definition });
    const second = setup();
    expect(second.registry.has('shortcut.double')).toBe(true);
    const result = await second.executor.execute('shortcut.double', { value: 2, label: 'b' });
    expect(renderResult(result)).toContain('B: 4');
  });

  it('inherits the worst risk of its steps', async () => {
    const { executor, registry } = setup();
    await executor.execute('shortcut_define', { definition: CLEANUP_SHORTCUT });
    expect(registry.get('shortcut.cleanup')?.metadata.risk).toBe('HIGH');
  });

  it('a refused step permission inside a shortcut stops it', async () => {
    const { executor } = setup({ deny: ['delete_file'] });
    await executor.execute('shortcut_define', { definition: CLEANUP_SHORTCUT });
    const result = await executor.execute('shortcut.cleanup', { path: 'x' });
    expect(!result.ok && result.error.code).toBe('PERMISSION_DENIED');
  });

  it('refuses a bad definition naming the field under definition', async () => {
    const { executor } = setup();
    const result = await executor.execute('shortcut_define', {
      definition: { ...definition, steps: [{ tool: 'no_such_tool', args: {} }] },
    });
    expect(!result.ok && result.error.field).toBe('definition.steps.0.tool');
    expect(!result.ok && result.error.message).toMatch(/^definition\.steps\.0\.tool: unknown tool/);
  });

  it('shortcut_run names the defined shortcuts for an unknown id', async () => {
    const { executor } = setup();
    await executor.execute('shortcut_define', { definition });
    const result = await executor.execute('shortcut_run', { id: 'shortcut.nope' });
    expect(renderResult(result)).toBe(
      'Error: [NOT_FOUND] id: no shortcut named "shortcut.nope"\nNext: Use one of: shortcut.double.',
    );
  });

  it('shortcut_list lists shortcuts and suggests pairs mined from traces', async () => {
    const { executor } = setup();
    await executor.execute('shortcut_define', { definition });
    for (let round = 0; round < 3; round += 1) {
      await executor.execute('calculate', { expression: '1+1' });
      await executor.execute('text_transform', { text: 'a', operation: 'upper' });
    }
    const result = await executor.execute('shortcut_list', {});
    const text = renderResult(result);
    expect(text).toContain('- shortcut.double (LOW; params: value, label): Doubles a number');
    expect(text).toContain(
      'Suggested shortcuts (define with shortcut_define):\n- calculate → text_transform (ran back to back 3 times)',
    );
  });
});
