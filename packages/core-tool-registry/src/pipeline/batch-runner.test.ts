import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolErrorCode } from '../contract/tool-error.js';
import { ToolHints } from '../contract/tool-metadata.js';
import {
  failureResult,
  renderResult,
  successResult,
  type ToolResult,
} from '../contract/tool-result.js';
import { ToolSchema } from '../contract/tool-schema.js';
import { RiskAwareToolGate } from '../policies/tool-execution-gate.js';
import { ToolPermissionManager } from '../policies/tool-permission-manager.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { FakeClock, flushMicrotasks } from '../testing/fake-clock.js';
import { FIXTURE_METADATA } from '../testing/fixture-metadata.js';
import { defineTestTool } from '../testing/test-tool.js';
import {
  MAX_BATCH_STEPS,
  NOT_EXECUTED_TEXT,
  resolveReferences,
  ToolBatchRunner,
  truncateHead,
} from './batch-runner.js';
import { createToolExecutor } from './pipeline-tool-executor.js';

function setup(options: { deny?: boolean } = {}) {
  const calls: Array<{ tool: string; args: unknown }> = [];
  const registry = new ToolRegistry();
  registry.registerAll([
    defineTestTool({
      id: 'echo',
      inputSchema: ToolSchema.object({ text: z.string() }),
      execute: ({ text }) => {
        calls.push({ tool: 'echo', args: { text } });
        return successResult(text);
      },
    }),
    defineTestTool({
      id: 'fail',
      execute: () => {
        calls.push({ tool: 'fail', args: {} });
        return failureResult(ToolErrorCode.NOT_FOUND, 'path: no such file', { field: 'path' });
      },
    }),
    defineTestTool({
      id: 'run_many',
      description: 'fixture: runs other tools, as a batch does',
      metadata: {
        category: 'orchestration',
        risk: 'LOW',
        annotations: ToolHints.mutating,
        orchestrates: true,
      },
      execute: () => {
        calls.push({ tool: 'run_many', args: {} });
        return successResult('ran');
      },
    }),
    defineTestTool({
      id: 'hang',
      execute: () => {
        calls.push({ tool: 'hang', args: {} });
        return new Promise<ToolResult>(() => {});
      },
    }),
    defineTestTool({
      id: 'write_file',
      inputSchema: ToolSchema.object({ path: z.string() }),
      metadata: FIXTURE_METADATA.write_file,
      execute: ({ path }) => {
        calls.push({ tool: 'write_file', args: { path } });
        return `wrote ${path}`;
      },
    }),
  ]);
  const clock = new FakeClock();
  const permissions = new ToolPermissionManager({
    confirm: async () => (options.deny ? 'deny' : 'allow_once'),
  });
  const executor = createToolExecutor({
    registry,
    clock,
    gate: new RiskAwareToolGate(permissions),
  });
  const runner = new ToolBatchRunner({ executor, clock });
  return { runner, calls, clock };
}

describe('ToolBatchRunner', () => {
  it('runs steps in order and reports each', async () => {
    const { runner, calls } = setup();
    const result = await runner.run([
      { tool: 'echo', args: { text: 'a' } },
      { tool: 'echo', args: { text: 'b' } },
    ]);
    expect(calls.map((call) => call.args)).toEqual([{ text: 'a' }, { text: 'b' }]);
    expect(renderResult(result)).toBe('[0] echo: ok\na\n\n[1] echo: ok\nb');
  });

  it('stops at the first failure; later steps return exactly the Not executed text', async () => {
    const { runner, calls } = setup();
    const result = await runner.run([
      { tool: 'echo', args: { text: 'a' } },
      { tool: 'fail' },
      { tool: 'echo', args: { text: 'c' } },
    ]);
    expect(calls.map((call) => call.tool)).toEqual(['echo', 'fail']);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('NOT_FOUND');
    expect(result.error.field).toBe('steps.1.args.path');
    const steps = result.error.details?.steps as Array<{ status: string; text: string }>;
    expect(steps.map((step) => step.status)).toEqual(['ok', 'failed', 'not_executed']);
    expect(steps[2]?.text).toBe(NOT_EXECUTED_TEXT);
    expect(NOT_EXECUTED_TEXT).toBe('Not executed: an earlier action in this turn failed.');
    expect(renderResult(result)).toContain(
      '[2] echo: not executed\nNot executed: an earlier action in this turn failed.',
    );
    expect(result.error.hint).toContain('Step 0 already ran; do not repeat it.');
  });

  it('passes an earlier output as a whole value and interpolated into text', async () => {
    const { runner, calls } = setup();
    await runner.run([
      { tool: 'echo', args: { text: 'notes.txt' } },
      { tool: 'echo', args: { text: '{0}' } },
      { tool: 'echo', args: { text: 'copy of {1} and {0}' } },
    ]);
    expect(calls.map((call) => call.args)).toEqual([
      { text: 'notes.txt' },
      { text: 'notes.txt' },
      { text: 'copy of notes.txt and notes.txt' },
    ]);
  });

  it('{{n}} is a literal {n}, not a reference', async () => {
    const { runner, calls } = setup();
    await runner.run([
      { tool: 'echo', args: { text: 'x' } },
      { tool: 'echo', args: { text: '\\d{{3}} and {0}' } },
    ]);
    expect(calls[1]?.args).toEqual({ text: '\\d{3} and x' });
  });

  it('head-truncates referenced outputs to 4 KB', async () => {
    const { runner, calls } = setup();
    await runner.run([
      { tool: 'echo', args: { text: 'é'.repeat(5_000) } },
      { tool: 'echo', args: { text: '{0}' } },
    ]);
    const passed = (calls[1]?.args as { text: string } | undefined)?.text ?? '';
    expect(Buffer.byteLength(passed)).toBe(4_096);
    expect(passed).toBe('é'.repeat(2_048));
  });

  it.each([
    [[{ tool: 'echo', args: { text: '{0}' } }], 'steps.0.args.text'],
    [
      [
        { tool: 'echo', args: { text: 'a' } },
        { tool: 'echo', args: { text: 'see {1}' } },
      ],
      'steps.1.args.text',
    ],
    [
      [
        { tool: 'echo', args: { text: 'a' } },
        { tool: 'echo', args: { text: 'x', extra: ['{7}'] } },
      ],
      'steps.1.args.extra.0',
    ],
  ])('refuses forward or out-of-range references before any call (%#)', async (steps, field) => {
    const { runner, calls } = setup();
    const result = await runner.run(steps);
    expect(calls).toEqual([]);
    expect(!result.ok && result.error.code).toBe('INVALID_ARGUMENT');
    expect(!result.ok && result.error.field).toBe(field);
  });

  it('accepts steps as a JSON string', async () => {
    const { runner } = setup();
    const result = await runner.run(JSON.stringify([{ tool: 'echo', args: '{"text":"s"}' }]));
    expect(renderResult(result)).toBe('[0] echo: ok\ns');
  });

  it.each([
    ['not json', 'steps', /not valid JSON/],
    [[], 'steps', /at least one step/],
    [[{ args: {} }], 'steps.0.tool', /required/],
    [[{ tool: 'echo', args: 5 }], 'steps.0.args', /expected an object/],
    [[{ tool: 'ecoh', args: {} }], 'steps.0.tool', /unknown tool "ecoh"; did you mean echo/],
    [[{ tool: 'run_many', args: {} }], 'steps.0.tool', /cannot run inside a batch/],
  ])('refuses malformed steps naming the field (%#)', async (steps, field, message) => {
    const { runner, calls } = setup();
    const result = await runner.run(steps);
    expect(calls).toEqual([]);
    expect(!result.ok && result.error.field).toBe(field);
    expect(!result.ok && result.error.message).toMatch(message);
  });

  it(`refuses more than ${MAX_BATCH_STEPS} steps`, async () => {
    const { runner, calls } = setup();
    const steps = Array.from({ length: 17 }, () => ({ tool: 'echo', args: { text: 'x' } }));
    const result = await runner.run(steps);
    expect(calls).toEqual([]);
    expect(!result.ok && result.error.message).toBe(
      'steps: 17 steps is more than the limit of 16; split the batch',
    );
  });

  it('refuses a budget above 600 s', async () => {
    const { runner } = setup();
    const result = await runner.run([{ tool: 'echo', args: { text: 'x' } }], { budgetMs: 600_001 });
    expect(!result.ok && result.error.field).toBe('budgetMs');
  });

  it('every step passes the same gates: a refused permission stops the batch', async () => {
    const { runner, calls } = setup({ deny: true });
    const result = await runner.run([
      { tool: 'echo', args: { text: 'a' } },
      { tool: 'write_file', args: { path: 'x' } },
      { tool: 'echo', args: { text: 'c' } },
    ]);
    expect(calls.map((call) => call.tool)).toEqual(['echo']);
    expect(!result.ok && result.error.code).toBe('PERMISSION_DENIED');
  });

  it('ends the batch when the 120 s budget runs out, even if a step ignores its signal', async () => {
    const { runner, clock } = setup();
    let settled: ToolResult | undefined;
    void runner
      .run([
        { tool: 'echo', args: { text: 'a' } },
        { tool: 'hang' },
        { tool: 'echo', args: { text: 'c' } },
      ])
      .then((result) => {
        settled = result;
      });
    await clock.advanceAsync(119_999);
    expect(settled).toBeUndefined();
    await clock.advanceAsync(1);
    await flushMicrotasks();
    expect(settled?.ok).toBe(false);
    if (!settled || settled.ok) return;
    expect(settled.error.code).toBe('TIMEOUT');
    expect(settled.error.message).toContain('The batch budget of 120 s ran out during step 1.');
    expect(renderResult(settled)).toContain(`[2] echo: not executed\n${NOT_EXECUTED_TEXT}`);
  });
});

describe('references and truncation', () => {
  it('resolves nested values and leaves unknown indexes', () => {
    expect(resolveReferences({ a: ['{0}', { b: 'x{1}y' }], n: 3 }, ['zero', 'one'])).toEqual({
      a: ['zero', { b: 'xoney' }],
      n: 3,
    });
  });

  it('truncates on a character boundary', () => {
    expect(truncateHead('aé', 2)).toBe('a');
    expect(truncateHead('short', 4096)).toBe('short');
  });
});
