import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CPU_TOOL_IDS,
  INLINE_TEXT_TRANSFORM_CHARS,
  loadCpuTool,
} from '../src/cpu/cpu-tool-definitions.js';
import { CpuToolPool, offloadCpuTools } from '../src/cpu/cpu-tool-pool.js';

const RUNAWAY = 'f(n)=n<1?1:f(n-1)+f(n-1); f(40)';

/** The in-process definitions of every CPU-bound tool. */
async function cpuTools(): Promise<AnyToolDefinition[]> {
  const tools = CPU_TOOL_IDS.map((id) => loadCpuTool(id));
  return tools.filter((tool) => tool !== undefined);
}

async function setUp(pool: CpuToolPool, timeoutMs: number) {
  const registry = new ToolRegistry();
  const tools = offloadCpuTools(await cpuTools(), pool);
  for (const tool of tools) registry.register(tool);
  const overrides: Record<string, { timeoutMs: number; maxRetries: number }> = {};
  for (const tool of tools) overrides[tool.id] = { timeoutMs, maxRetries: 0 };
  return createToolExecutor({ registry, runPolicies: { overrides } });
}

describe('offloadCpuTools', () => {
  it('runs a short text_transform on the calling thread and a long one in a worker', async () => {
    const pool = new CpuToolPool({ maxThreads: 1, minThreads: 0 });
    try {
      const executor = await setUp(pool, 120_000);
      const short = 'ab '.repeat(INLINE_TEXT_TRANSFORM_CHARS / 3);
      expect(
        await executor.execute('text_transform', { text: short, operation: 'upper' }),
      ).toMatchObject({
        ok: true,
        content: short.toUpperCase(),
      });
      expect(pool.threadCount).toBe(0);
      const long = 'x'.repeat(INLINE_TEXT_TRANSFORM_CHARS + 1);
      expect(
        await executor.execute('text_transform', { text: long, operation: 'length' }),
      ).toMatchObject({
        ok: true,
        content: String(INLINE_TEXT_TRANSFORM_CHARS + 1),
      });
      expect(pool.threadCount).toBe(1);
    } finally {
      await pool.close();
    }
  });
});

describe('CpuToolPool (real worker threads, TypeScript sources through tsx)', () => {
  const pool = new CpuToolPool({ maxThreads: 2 });
  afterAll(() => pool.close());

  it('gives the same result in a worker as in-process', async () => {
    const executor = await setUp(pool, 60_000);
    const inWorker = await executor.execute('calculate', { expression: '2+3*4' });
    expect(inWorker).toEqual({
      ok: true,
      content: '14',
      data: { expression: '2+3*4', result: '14', value: 14 },
    });
    const failed = await executor.execute('csv_query', {
      csv: 'a,b\n1,2\n',
      select: ['zz'],
    });
    expect(failed).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'select.0' },
    });
  });

  it('ends a runaway calculate with TIMEOUT while other calls and timers keep running', async () => {
    // Warm both workers (without a tight limit: a loaded machine starts threads slowly) so that
    // the time limit measures the runaway, not a worker's start; from two sessions, as one
    // session's calls share one thread.
    const patient = await setUp(pool, 120_000);
    await Promise.all([
      patient.execute('calculate', { expression: '1+1' }, { sessionId: 'a' }),
      patient.execute('calculate', { expression: '2+2' }, { sessionId: 'b' }),
    ]);
    const executor = await setUp(pool, 3_000);
    let beats = 0;
    const heartbeat = setInterval(() => {
      beats += 1;
    }, 20);
    try {
      const runaway = executor.execute('calculate', { expression: RUNAWAY }, { sessionId: 'a' });
      // Another session's call takes the other thread (one session's calls share its one thread).
      const quick = await executor.execute('calculate', { expression: '6*7' }, { sessionId: 'b' });
      expect(quick).toMatchObject({ ok: true, content: '42' });
      const beatsBefore = beats;
      const result = await runaway;
      expect(result).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
      // The event loop stayed free during the runaway: the heartbeat kept beating.
      expect(beats - beatsBefore).toBeGreaterThan(10);
      // The terminated worker is replaced: the next call answers.
      const after = await executor.execute('calculate', { expression: '10/4' });
      expect(after).toMatchObject({ ok: true, content: '2.5' });
    } finally {
      clearInterval(heartbeat);
    }
  });

  it('ends a task at its own backstop limit when the executor has no time limit', async () => {
    const backstopPool = new CpuToolPool({ maxThreads: 1, taskTimeLimitMs: 2_000 });
    try {
      const registry = new ToolRegistry();
      for (const tool of offloadCpuTools(await cpuTools(), backstopPool)) {
        registry.register(tool);
      }
      const executor = createToolExecutor({ registry });
      const result = await executor.execute('calculate', { expression: RUNAWAY });
      expect(result).toMatchObject({
        ok: false,
        error: {
          code: 'TIMEOUT',
          message: 'calculate was stopped after 2000 ms',
          retryable: false,
        },
      });
    } finally {
      await backstopPool.close();
    }
  });

  it('ends the call as cancelled and stops the worker when the caller aborts', async () => {
    const executor = await setUp(pool, 120_000);
    const controller = new AbortController();
    const running = executor.execute(
      'calculate',
      { expression: RUNAWAY },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 500);
    expect(await running).toMatchObject({
      ok: false,
      error: { code: 'EXECUTION_FAILED', retryable: false, details: { cancelled: true } },
    });
    expect(await executor.execute('calculate', { expression: '7-2' })).toMatchObject({
      ok: true,
      content: '5',
    });
  });

  it('reports a tool that does not run in the pool as a failure, not a throw', async () => {
    const context = {
      callId: 'c',
      sessionId: 's',
      attempt: 1,
      signal: new AbortController().signal,
      emit: () => {},
      confirm: async () => 'deny' as const,
    };
    await expect(pool.run('get_time', {}, context)).rejects.toThrow(
      'get_time does not run in the CPU tool pool',
    );
  });

  it('refuses calls after close with UNSUPPORTED', async () => {
    const closed = new CpuToolPool();
    await closed.close();
    const executor = await setUp(closed, 5_000);
    const result = await executor.execute('calculate', { expression: '1+1' });
    expect(result).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', retryable: false } });
  });
});
