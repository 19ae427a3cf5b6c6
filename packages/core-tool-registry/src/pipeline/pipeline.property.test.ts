import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError, ToolErrorCode } from '../contract/tool-error.js';
import { ToolHints } from '../contract/tool-metadata.js';
import { isToolResult, renderResult } from '../contract/tool-result.js';
import { ToolSchema } from '../contract/tool-schema.js';
import { ToolCircuitBreaker } from '../policies/circuit-breaker.js';
import { ToolEnvironmentGate, ToolEnvironmentState } from '../policies/environment-gate.js';
import { ToolRateLimiter } from '../policies/rate-limiter.js';
import { RiskAwareToolGate } from '../policies/tool-execution-gate.js';
import { ToolPermissionManager } from '../policies/tool-permission-manager.js';
import { RunPolicies } from '../policies/tool-run-policy.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { FakeClock } from '../testing/fake-clock.js';
import { FIXTURE_METADATA } from '../testing/fixture-metadata.js';
import { defineTestTool } from '../testing/test-tool.js';
import { ToolBatchRunner } from './batch-runner.js';
import { createToolExecutor } from './pipeline-tool-executor.js';
import { ToolTraceRecorder } from './trace-recorder.js';

function createStack() {
  const clock = new FakeClock();
  const registry = new ToolRegistry();
  registry.registerAll([
    defineTestTool({
      id: 'echo',
      inputSchema: ToolSchema.object({
        text: z.string(),
        times: z.number().int().min(1).max(3).optional(),
      }),
      runPolicy: RunPolicies.quickRead,
      execute: ({ text, times }) => text.repeat(times ?? 1),
    }),
    defineTestTool({
      id: 'throws',
      runPolicy: RunPolicies.mutating,
      execute: () => {
        throw new Error('boom');
      },
    }),
    defineTestTool({
      id: 'throws_tool_error',
      inputSchema: ToolSchema.object({ path: z.string().optional() }),
      execute: () => {
        throw new ToolError(ToolErrorCode.NOT_FOUND, 'nothing there', { field: 'path' });
      },
    }),
    defineTestTool({
      id: 'garbage',
      inputSchema: ToolSchema.fromRendered({ type: 'object' }),
      execute: (args) => (Object.keys(args).length % 2 === 0 ? (null as unknown as string) : 'ok'),
    }),
    defineTestTool({
      id: 'write_file',
      inputSchema: ToolSchema.object({ path: z.string() }),
      metadata: FIXTURE_METADATA.write_file,
      runPolicy: RunPolicies.mutating,
      execute: ({ path }) => `wrote ${path}`,
    }),
  ]);
  const state = new ToolEnvironmentState({ clock });
  state.set('ime.shown', false);
  let answer = 0;
  const executor = createToolExecutor({
    registry,
    clock,
    gate: new RiskAwareToolGate(
      new ToolPermissionManager({
        confirm: async () => (answer++ % 2 === 0 ? 'allow_once' : 'deny'),
      }),
    ),
    environmentGate: new ToolEnvironmentGate({
      state,
      rules: {
        echo: [
          {
            signal: 'ime.shown',
            blocks: (_value, args) => (args as { text?: unknown })?.text === 'blocked',
            message: 'blocked',
            hint: 'fix',
          },
        ],
      },
    }),
    rateLimiter: new ToolRateLimiter({ clock }),
    circuitBreaker: new ToolCircuitBreaker({ clock }),
    traces: new ToolTraceRecorder({ clock }),
    runPolicies: { random: () => 0 },
  });
  return { executor, runner: new ToolBatchRunner({ executor, clock }) };
}

const toolIds = fc.constantFrom(
  'echo',
  'throws',
  'throws_tool_error',
  'garbage',
  'write_file',
  'nope',
  '',
  'ECHO',
);
const anyArgs = fc.oneof(
  fc.jsonValue(),
  fc.json(),
  fc.string(),
  fc.constant(undefined),
  fc.record(
    {
      text: fc.oneof(fc.string(), fc.constantFrom('blocked', '{0}', 'x {1} y')),
      times: fc.jsonValue(),
    },
    { requiredKeys: [] },
  ),
);

describe('property: the pipeline never throws', () => {
  it('the executor always returns a ToolResult for random ids and argument JSON', async () => {
    const { executor } = createStack();
    await fc.assert(
      fc.asyncProperty(toolIds, anyArgs, async (id, args) => {
        const result = await executor.execute(id, args);
        expect(isToolResult(result)).toBe(true);
        expect(typeof renderResult(result)).toBe('string');
      }),
      { numRuns: 400 },
    );
  });

  it('the batch runner always returns a ToolResult for random step lists', async () => {
    const { runner } = createStack();
    const step = fc.oneof(
      fc.record({ tool: toolIds, args: anyArgs }, { requiredKeys: [] }),
      fc.jsonValue(),
    );
    const steps = fc.oneof(fc.array(step, { maxLength: 20 }), fc.json(), fc.jsonValue());
    await fc.assert(
      fc.asyncProperty(steps, fc.boolean(), async (raw, encode) => {
        const result = await runner.run(encode ? JSON.stringify(raw) : raw);
        expect(isToolResult(result)).toBe(true);
        expect(typeof renderResult(result)).toBe('string');
      }),
      { numRuns: 300 },
    );
  });

  it('tool_batch_run through the executor returns a ToolResult for any steps value', async () => {
    const { executor, runner } = createStack();
    executor.registry.register(
      defineTestTool({
        id: 'tool_batch_run',
        description: 'fixture wrapper',
        inputSchema: ToolSchema.object({ steps: z.unknown() }),
        metadata: { category: 'orchestration', risk: 'LOW', annotations: ToolHints.mutating },
        execute: ({ steps }, context) => runner.run(steps, { signal: context.signal }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (steps) => {
        const result = await executor.execute('tool_batch_run', { steps });
        expect(isToolResult(result)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
