import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolEvent } from '../contract/tool.js';
import { ToolError, ToolErrorCode } from '../contract/tool-error.js';
import type { ToolExecutor } from '../contract/tool-executor.js';
import { ToolHints } from '../contract/tool-metadata.js';
import { renderResult, successResult, type ToolResult } from '../contract/tool-result.js';
import { ToolSchema } from '../contract/tool-schema.js';
import { ToolCircuitBreaker } from '../policies/circuit-breaker.js';
import { ToolEnvironmentGate, ToolEnvironmentState } from '../policies/environment-gate.js';
import { ToolRateLimiter } from '../policies/rate-limiter.js';
import { RiskAwareToolGate } from '../policies/tool-execution-gate.js';
import { ToolPermissionManager } from '../policies/tool-permission-manager.js';
import { RunPolicies } from '../policies/tool-run-policy.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { FIXTURE_METADATA } from '../testing/fixture-metadata.js';
import { defineTestTool } from '../testing/test-tool.js';
import { createToolExecutor, type PipelineToolExecutor } from './pipeline-tool-executor.js';
import { ToolTraceRecorder } from './trace-recorder.js';

/** The tools every executor case runs against. */
function createRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.registerAll([
    defineTestTool({
      id: 'echo',
      description: 'Echoes text.',
      inputSchema: ToolSchema.object({ text: z.string() }),
      runPolicy: RunPolicies.quickRead,
      execute: ({ text }) => successResult(text, { data: { text } }),
    }),
    defineTestTool({
      id: 'read_file',
      description: 'Reads a file (fixture).',
      inputSchema: ToolSchema.object({
        path: z.string(),
        limit: z.number().int().min(1).optional(),
      }),
      metadata: { category: 'file', risk: 'LOW', annotations: ToolHints.readOnly },
      execute: ({ path }) => `contents of ${path}`,
    }),
    defineTestTool({
      id: 'read_note',
      execute: () => 'note',
    }),
    defineTestTool({
      id: 'read_files',
      execute: () => 'files',
    }),
    defineTestTool({
      id: 'read_fine',
      execute: () => 'fine',
    }),
    defineTestTool({
      id: 'boom',
      description: 'Throws.',
      runPolicy: RunPolicies.network,
      execute: () => {
        throw new Error('disk on fire');
      },
    }),
    defineTestTool({
      id: 'missing_thing',
      description: 'Throws a ToolError.',
      execute: () => {
        throw new ToolError(ToolErrorCode.NOT_FOUND, 'path: no such file notes.txt', {
          field: 'path',
          hint: 'List the directory first.',
        });
      },
    }),
    defineTestTool({
      id: 'bad_return',
      description: 'Returns garbage.',
      execute: () => 42 as unknown as string,
    }),
    defineTestTool({
      id: 'write_file',
      description: 'MEDIUM risk fixture.',
      inputSchema: ToolSchema.object({ path: z.string() }),
      metadata: FIXTURE_METADATA.write_file,
      runPolicy: RunPolicies.mutating,
      execute: ({ path }) => `wrote ${path}`,
    }),
    defineTestTool({
      id: 'streamer',
      description: 'Streams output.',
      execute: (_args, context) => {
        context.emit({ type: 'progress', progress: 1, total: 2, message: 'half' });
        context.emit({ type: 'output', stream: 'stdout', text: 'line 1\n' });
        context.emit({ type: 'output', stream: 'stderr', text: 'warn\n' });
        context.emit({ type: 'progress', progress: 2, total: 2 });
        return 'streamed';
      },
    }),
  ]);
  return registry;
}

type ExecutorFactory = (options: {
  registry: ToolRegistry;
  permissions?: ToolPermissionManager;
}) => ToolExecutor;

/**
 * The executors the cases run against: no layers, and the layers that none of these calls trips
 * (rate limiter, breaker, traces, environment gate), which must leave every outcome unchanged.
 */
export const EXECUTORS: Record<string, ExecutorFactory> = {
  'no layers': ({ registry, permissions }) =>
    createToolExecutor({
      registry,
      ...(permissions ? { gate: new RiskAwareToolGate(permissions) } : {}),
    }),
  'layers that do not trip': ({ registry, permissions }) =>
    createToolExecutor({
      registry,
      ...(permissions ? { gate: new RiskAwareToolGate(permissions) } : {}),
      rateLimiter: new ToolRateLimiter(),
      circuitBreaker: new ToolCircuitBreaker(),
      traces: new ToolTraceRecorder(),
      environmentGate: new ToolEnvironmentGate({ state: new ToolEnvironmentState() }),
    }),
};

interface CaseRun {
  result: ToolResult;
  events: ToolEvent[];
}

/** One behaviour of the executor: a call, and what the caller must observe. */
interface ExecutorCase {
  name: string;
  run(factory: ExecutorFactory): Promise<CaseRun>;
  check(run: CaseRun): void;
}

async function call(
  factory: ExecutorFactory,
  id: string,
  args: unknown,
  options: { deny?: boolean; signal?: AbortSignal } = {},
): Promise<CaseRun> {
  const events: ToolEvent[] = [];
  const permissions = options.deny
    ? new ToolPermissionManager({ confirm: async () => 'deny' })
    : undefined;
  const executor = factory({ registry: createRegistry(), ...(permissions ? { permissions } : {}) });
  const result = await executor.execute(id, args, {
    onEvent: (event) => events.push(event),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { result, events };
}

/** The executor cases, shared by the suites of each executor and the parity suite. */
export const EXECUTOR_CASES: readonly ExecutorCase[] = [
  {
    name: 'returns the handler result for valid arguments',
    run: (factory) => call(factory, 'echo', { text: 'hi' }),
    check: ({ result }) =>
      expect(result).toEqual({ ok: true, content: 'hi', data: { text: 'hi' } }),
  },
  {
    name: 'accepts arguments as a JSON string',
    run: (factory) => call(factory, 'echo', '{"text":"json"}'),
    check: ({ result }) => expect(renderResult(result)).toBe('json'),
  },
  {
    name: 'a throwing handler becomes EXECUTION_FAILED with the message and no stack',
    run: (factory) => call(factory, 'boom', {}),
    check: ({ result }) => {
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error.code).toBe('EXECUTION_FAILED');
      expect(renderResult(result)).toBe(
        'Error: [EXECUTION_FAILED] disk on fire\nNext: The tool failed while running; read the message, adjust and retry once.',
      );
      expect(renderResult(result)).not.toMatch(/at .*\.ts:\d+/);
    },
  },
  {
    name: 'a thrown ToolError keeps its code, field and hint',
    run: (factory) => call(factory, 'missing_thing', {}),
    check: ({ result }) =>
      expect(renderResult(result)).toBe(
        'Error: [NOT_FOUND] path: no such file notes.txt\nNext: List the directory first.',
      ),
  },
  {
    name: 'a handler returning a non-result is EXECUTION_FAILED',
    run: (factory) => call(factory, 'bad_return', {}),
    check: ({ result }) =>
      expect(renderResult(result)).toBe(
        'Error: [EXECUTION_FAILED] bad_return returned an invalid result (number).\nNext: This is a defect in the tool; use another tool.',
      ),
  },
  {
    name: 'an unknown tool is NOT_FOUND naming at most three close ids',
    run: (factory) => call(factory, 'read_fil', {}),
    check: ({ result }) => {
      expect(!result.ok && result.error.code).toBe('NOT_FOUND');
      const suggestions = (!result.ok && result.error.details?.suggestions) as string[];
      expect(suggestions.length).toBeGreaterThan(0);
      expect(suggestions.length).toBeLessThanOrEqual(3);
      expect(suggestions).toContain('read_file');
      expect(renderResult(result)).toMatch(
        /^Error: \[NOT_FOUND\] Unknown tool "read_fil"\. Did you mean: /,
      );
    },
  },
  {
    name: 'bad arguments are INVALID_ARGUMENT naming the field path',
    run: (factory) => call(factory, 'read_file', { path: 7, limit: 0 }),
    check: ({ result }) => {
      expect(!result.ok && result.error.code).toBe('INVALID_ARGUMENT');
      expect(!result.ok && result.error.field).toBe('path');
      expect(renderResult(result)).toMatch(/^Error: \[INVALID_ARGUMENT\] path: expected string/);
      expect(renderResult(result)).toContain('limit:');
    },
  },
  {
    name: 'arguments that are not JSON are INVALID_ARGUMENT',
    run: (factory) => call(factory, 'echo', '{text'),
    check: ({ result }) => {
      expect(!result.ok && result.error.code).toBe('INVALID_ARGUMENT');
      expect(renderResult(result)).toContain('arguments are not valid JSON');
    },
  },
  {
    name: 'an array as arguments is INVALID_ARGUMENT',
    run: (factory) => call(factory, 'echo', [1, 2]),
    check: ({ result }) =>
      expect(!result.ok && result.error.message).toBe(
        'arguments must be a JSON object, received array',
      ),
  },
  {
    name: 'a refused permission is PERMISSION_DENIED and the tool does not run',
    run: (factory) => call(factory, 'write_file', { path: 'a.txt' }, { deny: true }),
    check: ({ result }) => {
      expect(!result.ok && result.error.code).toBe('PERMISSION_DENIED');
      expect(!result.ok && result.error.retryable).toBe(false);
    },
  },
  {
    name: 'streams progress and output events in order',
    run: (factory) => call(factory, 'streamer', {}),
    check: ({ result, events }) => {
      expect(renderResult(result)).toBe('streamed');
      expect(events).toEqual([
        { type: 'progress', progress: 1, total: 2, message: 'half' },
        { type: 'output', stream: 'stdout', text: 'line 1\n' },
        { type: 'output', stream: 'stderr', text: 'warn\n' },
        { type: 'progress', progress: 2, total: 2 },
      ]);
    },
  },
  {
    name: 'a call cancelled before it starts does not run the tool',
    run: (factory) => call(factory, 'echo', { text: 'x' }, { signal: AbortSignal.abort() }),
    check: ({ result }) => {
      expect(!result.ok && result.error.code).toBe('EXECUTION_FAILED');
      expect(!result.ok && result.error.details).toEqual({ cancelled: true });
    },
  },
];

for (const [label, factory] of Object.entries(EXECUTORS)) {
  describe(`executor cases: ${label}`, () => {
    for (const executorCase of EXECUTOR_CASES) {
      it(executorCase.name, async () => {
        executorCase.check(await executorCase.run(factory));
      });
    }
  });
}

describe('parity: layers that do not trip leave every outcome as without them', () => {
  const bare = EXECUTORS['no layers'] as ExecutorFactory;
  const layered = EXECUTORS['layers that do not trip'] as ExecutorFactory;
  for (const executorCase of EXECUTOR_CASES) {
    it(`same result and rendered text: ${executorCase.name}`, async () => {
      const expected = await executorCase.run(bare);
      const actual = await executorCase.run(layered);
      expect(actual.result).toEqual(expected.result);
      expect(renderResult(actual.result)).toBe(renderResult(expected.result));
      expect(actual.events).toEqual(expected.events);
    });
  }

  it('records usage the same way', async () => {
    for (const factory of [bare, layered]) {
      const registry = createRegistry();
      const executor = factory({ registry }) as PipelineToolExecutor;
      await executor.execute('echo', { text: 'a' });
      await executor.execute('boom', {});
      await executor.execute('nope', {});
      const usage = executor.usageTracker
        .snapshot()
        .map(({ toolId, calls, successes, failures }) => ({
          toolId,
          calls,
          successes,
          failures,
        }));
      expect(usage).toEqual([
        { toolId: 'boom', calls: 1, successes: 0, failures: 1 },
        { toolId: 'echo', calls: 1, successes: 1, failures: 0 },
      ]);
    }
  });
});
