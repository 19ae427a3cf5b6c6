// The CPU tool pool: worker threads, fair slots per session and time limits for CPU-bound tools.
import { availableParallelism } from 'node:os';
import type { AnyToolDefinition, ToolContext, ToolReturn } from '@toolsys/core-tool-registry';
import { isToolError, ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
// Piscina rather than tinypool: an aborted task that is already running terminates its worker
// thread (the only way to stop synchronous JavaScript), the pool replaces it, idle threads are
// unreferenced and retired, and it is maintained under the Node.js organisation.
import type { Piscina } from 'piscina';
import { lazyModule } from '../lazy-module.js';
import type { CpuTask, CpuTaskOutcome, CpuToolSet } from './cpu-task.js';
import { FairSlots } from './fair-slots.js';

const piscina = lazyModule<typeof import('piscina')>('piscina', import.meta.url);

/** Options for {@link CpuToolPool}. */
export interface CpuToolPoolOptions {
  /** The tools the pool runs: the module its workers load them from and the ids it takes. */
  tools: CpuToolSet;
  /** Worker threads at most. Default: the number of CPUs, at least 2. */
  maxThreads?: number;
  /**
   * Worker threads kept ready once the pool is in use (none before the first call). A worker
   * terminated at a time limit is replaced at once, so the next call does not wait for a thread to
   * start and load its libraries (seconds on a loaded machine). Default 1.
   */
  minThreads?: number;
  /** An idle worker exits after this many ms (a new one starts on demand). Default 30000. */
  idleTimeoutMs?: number;
  /**
   * Backstop time limit of one task in ms, for executors without run policies: the worker is
   * terminated and the call ends with TIMEOUT. The executor's own timeout (30 s for quickRead
   * tools) normally fires first. Default 60000.
   */
  taskTimeLimitMs?: number;
  /** Heap limit of one worker in MB; a task that passes it ends its worker, not the host. Default 1024. */
  maxHeapMb?: number;
  /**
   * Threads one caller (session) uses at most at once; its further calls wait their turn, and
   * callers are served round-robin. Default: half the threads, at least 1.
   */
  maxThreadsPerCaller?: number;
  /** Calls one caller may have waiting for a thread; more are refused as RATE_LIMITED. Default 16. */
  maxQueuedPerCaller?: number;
  /** Calls all callers together may have waiting; more are refused as RATE_LIMITED. Default 256. */
  maxQueued?: number;
}

/**
 * Runs CPU-bound tool calls in worker threads, so no call can block the event loop: other calls,
 * pings and timers keep running, and a call that passes its time limit is stopped by terminating
 * its worker (the pool starts a fresh one at once). Workers start on the first call, are reused,
 * and beyond `minThreads` exit when idle; idle workers never keep the process alive. Call
 * {@link close} when the tools are disposed.
 */
export class CpuToolPool {
  readonly #options: Required<
    Omit<CpuToolPoolOptions, 'tools' | 'maxThreadsPerCaller' | 'maxQueuedPerCaller' | 'maxQueued'>
  >;
  readonly #fair: FairSlots;
  readonly #module: string;
  /** The tool set this pool runs. */
  readonly tools: CpuToolSet;
  #pool: Piscina | undefined;
  #closed = false;

  constructor(options: CpuToolPoolOptions) {
    this.tools = options.tools;
    this.#module = String(options.tools.workerModule);
    this.#options = {
      maxThreads: options.maxThreads ?? Math.max(2, availableParallelism()),
      minThreads: options.minThreads ?? 1,
      idleTimeoutMs: options.idleTimeoutMs ?? 30_000,
      taskTimeLimitMs: options.taskTimeLimitMs ?? 60_000,
      maxHeapMb: options.maxHeapMb ?? 1024,
    };
    this.#fair = new FairSlots({
      slots: this.#options.maxThreads,
      ...(options.maxThreadsPerCaller === undefined
        ? {}
        : { perCaller: options.maxThreadsPerCaller }),
      ...(options.maxQueuedPerCaller === undefined
        ? {}
        : { queuedPerCaller: options.maxQueuedPerCaller }),
      ...(options.maxQueued === undefined ? {} : { queuedTotal: options.maxQueued }),
    });
  }

  /** Worker threads running now (0 before the first call and after idle ones retire). */
  get threadCount(): number {
    return this.#pool?.threads.length ?? 0;
  }

  /**
   * Runs one call of a tool of the pool's tool set in a worker. Resolves with what the handler
   * returned, throws what it threw (a ToolError keeps its code); when the context's signal fires
   * the worker is terminated at once. Threads are shared fairly between sessions (see
   * {@link FairSlots}): a session past its share waits its turn, and past the waiting lists the
   * call ends with RATE_LIMITED.
   */
  async run(
    toolId: string,
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<ToolReturn> {
    if (this.#closed) {
      throw new ToolError(ToolErrorCode.UNSUPPORTED, `${toolId}: the tool pool is shut down`, {
        retryable: false,
        hint: 'The host is stopping; do not retry.',
      });
    }
    const callSignal = context.signal;
    if (callSignal.aborted) throw abortReason(callSignal);
    // A thread is taken in the caller's turn: one session's backlog waits behind its own calls.
    let release: () => void;
    try {
      release = await this.#fair.acquire(context.sessionId, toolId, callSignal);
    } catch (error) {
      if (callSignal.aborted) throw abortReason(callSignal);
      throw error;
    }
    try {
      return await this.#runNow(toolId, args, context);
    } finally {
      release();
    }
  }

  async #runNow(
    toolId: string,
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<ToolReturn> {
    const callSignal = context.signal;
    const limit = this.#options.taskTimeLimitMs;
    const backstop = AbortSignal.timeout(limit);
    const signal = AbortSignal.any([callSignal, backstop]);
    const task: CpuTask = {
      module: this.#module,
      toolId,
      args,
      callId: context.callId,
      sessionId: context.sessionId,
      attempt: context.attempt,
    };
    let outcome: CpuTaskOutcome;
    try {
      outcome = (await this.#piscina().run(task, { signal })) as CpuTaskOutcome;
    } catch (error) {
      if (callSignal.aborted) throw abortReason(callSignal);
      if (backstop.aborted) {
        throw new ToolError(ToolErrorCode.TIMEOUT, `${toolId} was stopped after ${limit} ms`, {
          retryable: false,
          hint: 'Make the input smaller or the expression simpler, then retry.',
        });
      }
      throw new ToolError(
        ToolErrorCode.EXECUTION_FAILED,
        `${toolId} failed in its worker: ${(error as Error).message}`,
        { retryable: false, hint: 'Make the input smaller, then retry once.', cause: error },
      );
    }
    switch (outcome.kind) {
      case 'returned':
        return outcome.value;
      case 'tool-error':
        throw new ToolError(outcome.code, outcome.message, outcome.options);
      case 'error':
        throw new Error(outcome.message);
      default: {
        const unreachable: never = outcome;
        throw new Error(`unknown worker outcome ${String(unreachable)}`);
      }
    }
  }

  /** Terminates every worker; later calls fail with UNSUPPORTED. Safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true;
    const pool = this.#pool;
    this.#pool = undefined;
    if (pool) await pool.destroy();
  }

  #piscina(): Piscina {
    this.#pool ??= new (piscina().Piscina)({
      ...workerEntry(),
      workerData: { module: this.#module },
      minThreads: Math.min(this.#options.minThreads, this.#options.maxThreads),
      maxThreads: this.#options.maxThreads,
      idleTimeout: this.#options.idleTimeoutMs,
      // Pending calls wait in the queue; each still ends at its own time limit.
      maxQueue: Number.POSITIVE_INFINITY,
      resourceLimits: { maxOldGenerationSizeMb: this.#options.maxHeapMb },
    });
    return this.#pool;
  }
}

/**
 * Replaces the `execute` of every tool of the pool's tool set in a list by a call into the pool
 * (a call its `runsInline` finds cheap enough, such as a short `text_transform`, stays on the
 * calling thread);
 * other tools are returned as they are. Ids, schemas and metadata do not change; the run policy
 * keeps its name and time limit but allows no retry: the same input would run out of time again,
 * and every other failure of these tools is final anyway.
 */
export function offloadCpuTools(
  tools: readonly AnyToolDefinition[],
  pool: CpuToolPool,
): AnyToolDefinition[] {
  const { toolIds, runsInline = () => false } = pool.tools;
  return tools.map((tool) =>
    toolIds.includes(tool.id)
      ? {
          ...tool,
          ...(tool.runPolicy ? { runPolicy: { ...tool.runPolicy, maxRetries: 0 } } : {}),
          execute: (args: Record<string, unknown>, context: ToolContext) =>
            runsInline(tool.id, args)
              ? tool.execute(args, context)
              : pool.run(tool.id, args, context),
        }
      : tool,
  );
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (isToolError(reason) || reason instanceof Error) return reason;
  return new Error('The call was cancelled by the caller.');
}

/**
 * Where the worker code is. Built, it is `cpu-worker.js` beside this file. From the TypeScript
 * sources (tests, `pnpm toolsys`), it is `cpu-worker-source.mjs`, which registers tsx in the worker
 * (a worker thread does not share the loader of the thread that starts it, and `--import tsx`
 * registers none in a worker on Node 20) and resolves workspace packages to their sources, so the
 * tool set's module may then be a `.ts` file.
 */
function workerEntry(): { filename: string; execArgv?: string[] } {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return { filename: new URL('./cpu-worker.js', here).href };
  return {
    filename: new URL('./cpu-worker-source.mjs', here).href,
    execArgv: ['--conditions=@toolsys/source'],
  };
}
