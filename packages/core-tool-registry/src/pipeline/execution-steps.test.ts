import { describe, expect, it } from 'vitest';
import type { ToolContext } from '../contract/tool.js';
import { RunPolicies } from '../policies/tool-run-policy.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { FakeClock } from '../testing/fake-clock.js';
import { defineTestTool } from '../testing/test-tool.js';
import { hasEventSink, isAttemptSignal, mayAbortWithin } from './execution-steps.js';
import { createToolExecutor } from './pipeline-tool-executor.js';

/** Runs one call of a probe tool and returns what `probe` saw in its context. */
async function probe<T>(
  look: (context: ToolContext) => T,
  options: {
    runPolicies?: boolean;
    signal?: AbortSignal;
    onEvent?: () => void;
  } = {},
): Promise<T> {
  let seen: T | undefined;
  const registry = new ToolRegistry();
  registry.register(
    defineTestTool({
      id: 'probe',
      runPolicy: { ...RunPolicies.quickRead, timeoutMs: 10_000 },
      execute(_args, context) {
        seen = look(context);
        return 'done';
      },
    }),
  );
  const executor = createToolExecutor({
    registry,
    clock: new FakeClock(),
    ...(options.runPolicies === false ? {} : { runPolicies: {} }),
  });
  const result = await executor.execute(
    'probe',
    {},
    {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    },
  );
  expect(result.ok).toBe(true);
  return seen as T;
}

describe('hasEventSink', () => {
  it('is false only when the caller gave no onEvent, also for a spread context', async () => {
    expect(await probe((context) => hasEventSink(context))).toBe(false);
    expect(await probe((context) => hasEventSink({ ...context }))).toBe(false);
    expect(await probe((context) => hasEventSink(context), { onEvent: () => {} })).toBe(true);
    expect(await probe((context) => hasEventSink(context), { runPolicies: false })).toBe(false);
  });
});

describe('mayAbortWithin', () => {
  it('is false only before the executor time limit when no caller can cancel', async () => {
    expect(await probe((context) => mayAbortWithin(context, 5_000))).toBe(false);
    expect(await probe((context) => mayAbortWithin(context, 10_000))).toBe(true);
    expect(await probe((context) => mayAbortWithin(context, 5_000), { runPolicies: false })).toBe(
      false,
    );
  });

  it('is true with a caller signal and for contexts it does not know', async () => {
    const signal = new AbortController().signal;
    expect(await probe((context) => mayAbortWithin(context, 1), { signal })).toBe(true);
    expect(
      await probe((context) => mayAbortWithin(context, 1), { signal, runPolicies: false }),
    ).toBe(true);
    expect(await probe((context) => mayAbortWithin({ ...context }, 1))).toBe(true);
  });
});

describe('isAttemptSignal', () => {
  it('marks only signals the executor made for one attempt', async () => {
    expect(await probe((context) => isAttemptSignal(context.signal))).toBe(true);
    const signal = new AbortController().signal;
    expect(
      await probe((context) => isAttemptSignal(context.signal), { signal, runPolicies: false }),
    ).toBe(false);
    expect(isAttemptSignal(signal)).toBe(false);
  });
});
