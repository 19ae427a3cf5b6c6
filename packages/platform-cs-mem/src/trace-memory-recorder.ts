import { createHash } from 'node:crypto';
import type { EpisodeToolCall, MacroParam, MacroStep } from './memory-model.js';
import type { MemoryStore } from './memory-store.js';

/**
 * The fields of a trace span this adapter reads. The core `ToolTraceRecorder` spans carry them
 * (callId, toolId, attempt, durationMs, outcome, errorSlug); `sessionId` and `startedAt` are used
 * when present. Spans hold only an argument digest, never raw values.
 */
export interface TraceSpanLike {
  /** The call id, shared by every attempt of one call. */
  readonly callId: string;
  /** The tool called. */
  readonly toolId: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Duration of the attempt in ms. */
  readonly durationMs: number;
  /** `success` (or `ok`) for a successful attempt; anything else is a failure kind. */
  readonly outcome: string;
  /** Short error kind of a failed attempt. */
  readonly errorSlug?: string | undefined;
  /** The agent session, when the recorder knows it. */
  readonly sessionId?: string | undefined;
  /** The id of the principal who called, when known. */
  readonly principal?: string | undefined;
  /** How that principal proved who it is, when known. */
  readonly principalKind?: 'oauth' | 'token' | 'local' | undefined;
  /** Start time in ms since the epoch, when the recorder knows it. */
  readonly startedAt?: number | undefined;
}

/** Anything that hands out finished spans to listeners and returns an unsubscribe function. */
export interface TraceSpanSource {
  /** Registers a listener for each finished span; the returned function removes it. */
  onSpan(listener: (span: TraceSpanLike) => void): () => void;
}

/** Options for {@link TraceMemoryRecorder}. */
export interface TraceMemoryRecorderOptions {
  /**
   * Where episodes and macros are written, or a function opening the store of the principal whose
   * calls they are (absent: the local principal) on the first write.
   */
  store:
    | MemoryStore
    | ((principal?: { id: string; kind: 'oauth' | 'token' | 'local' }) => MemoryStore);
  /** Clock in ms since the epoch. Default `Date.now`. */
  now?: () => number;
  /**
   * Quiet time after which a session's calls are closed into one episode, checked lazily when the
   * next span of that session arrives (no timers). Default 5 minutes.
   */
  idleGapMs?: number;
  /** Fewest consecutive successful calls (of at least two different tools) kept as a macro. Default 2. */
  minMacroSteps?: number;
  /**
   * Argument template for a call. Spans carry only digests, so without this hook macro steps have
   * empty `args` and the model fills them in; a host that knows the arguments can return a template
   * with `{param}` placeholders (each becomes a declared string param).
   */
  argsTemplate?: (span: TraceSpanLike) => Record<string, unknown> | undefined;
  /** Session of a span that carries none. Default `default`. */
  defaultSessionId?: string;
  /** Tools left out of macros (they still appear in episodes). Default: the `memory_*` tools. */
  isMacroTool?: (toolId: string) => boolean;
  /** Receives failures to write memory; recording is best effort and never breaks a tool call. */
  onError?: (error: unknown) => void;
}

interface PendingCall {
  span: TraceSpanLike;
  at: number;
}

interface PendingSession {
  calls: Map<string, PendingCall>;
  firstAt: number;
  lastAt: number;
}

const MAX_MACRO_STEPS = 16;
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Records episodes and macros from a trace recorder's spans. Calls of a session are grouped until
 * the session is quiet for `idleGapMs` (or `flush` is called); each group becomes one episode, and
 * each run of consecutive successful calls becomes a macro whose success count grows every time the
 * same sequence succeeds again.
 */
export class TraceMemoryRecorder {
  readonly #store: (principal?: { id: string; kind: 'oauth' | 'token' | 'local' }) => MemoryStore;
  readonly #now: () => number;
  readonly #idleGapMs: number;
  readonly #minMacroSteps: number;
  readonly #argsTemplate: TraceMemoryRecorderOptions['argsTemplate'];
  readonly #defaultSessionId: string;
  readonly #isMacroTool: (toolId: string) => boolean;
  readonly #onError: (error: unknown) => void;
  readonly #sessions = new Map<string, PendingSession>();
  readonly #detachers = new Set<() => void>();

  constructor(options: TraceMemoryRecorderOptions) {
    const { store } = options;
    this.#store = typeof store === 'function' ? store : () => store;
    this.#now = options.now ?? Date.now;
    this.#idleGapMs = options.idleGapMs ?? 5 * 60_000;
    this.#minMacroSteps = Math.max(2, options.minMacroSteps ?? 2);
    this.#argsTemplate = options.argsTemplate;
    this.#defaultSessionId = options.defaultSessionId ?? 'default';
    this.#isMacroTool = options.isMacroTool ?? ((toolId) => !toolId.startsWith('memory_'));
    this.#onError = options.onError ?? (() => {});
  }

  /** Listens to a span source; the returned function stops listening. */
  attach(source: TraceSpanSource): () => void {
    const detach = source.onSpan((span) => this.record(span));
    this.#detachers.add(detach);
    return () => {
      this.#detachers.delete(detach);
      detach();
    };
  }

  /** Takes one finished span. A later attempt of the same call replaces the earlier one. */
  record(span: TraceSpanLike): void {
    // One principal's calls never join another's episode, whatever their session ids.
    const sessionId = sessionKey(span.sessionId ?? this.#defaultSessionId, span);
    const at = span.startedAt ?? this.#now();
    const pending = this.#sessions.get(sessionId);
    if (pending && at - pending.lastAt > this.#idleGapMs) this.flush(sessionId);
    const session = this.#sessions.get(sessionId) ?? {
      calls: new Map<string, PendingCall>(),
      firstAt: at,
      lastAt: at,
    };
    const earlier = session.calls.get(span.callId);
    session.calls.set(span.callId, { span, at: earlier?.at ?? at });
    session.lastAt = Math.max(session.lastAt, at + Math.max(0, span.durationMs));
    this.#sessions.set(sessionId, session);
  }

  /** Closes pending calls into episodes and macros: one session, or all when none is named. */
  flush(sessionId?: string): void {
    const ids = [...this.#sessions.keys()].filter(
      (key) => sessionId === undefined || key === sessionId || key.endsWith(`\u0000${sessionId}`),
    );
    for (const id of ids) {
      const session = this.#sessions.get(id);
      this.#sessions.delete(id);
      if (!session || session.calls.size === 0) continue;
      try {
        this.#write(id, session);
      } catch (error) {
        this.#onError(error);
      }
    }
  }

  /** Flushes everything and stops listening to every attached source. */
  close(): void {
    for (const detach of this.#detachers) detach();
    this.#detachers.clear();
    this.flush();
  }

  #write(sessionId: string, session: PendingSession): void {
    const calls = [...session.calls.values()].sort((a, b) => a.at - b.at);
    const toolCalls: EpisodeToolCall[] = calls.map(({ span }) => ({
      toolId: span.toolId,
      outcome: span.outcome,
      callId: span.callId,
      durationMs: span.durationMs,
      ...(span.errorSlug ? { errorSlug: span.errorSlug } : {}),
    }));
    const failed = calls.filter(({ span }) => !isSuccess(span)).length;
    const summary = `${calls.length} tool call${calls.length === 1 ? '' : 's'}${failed > 0 ? ` (${failed} failed)` : ''}: ${calls.map(({ span }) => span.toolId).join(' → ')}`;
    const runs = this.#successfulRuns(calls.map(({ span }) => span));
    const { principal, principalKind } = calls[0]?.span ?? {};
    const store = this.#store(
      principal !== undefined ? { id: principal, kind: principalKind ?? 'local' } : undefined,
    );
    store.transaction(() => {
      store.recordEpisode({
        sessionId: sessionId.slice(sessionId.indexOf('\u0000') + 1),
        summary,
        toolCalls,
        startedAt: session.firstAt,
        endedAt: session.lastAt,
      });
      for (const run of runs) store.recordMacro(this.#macroOf(run));
    });
  }

  #successfulRuns(spans: readonly TraceSpanLike[]): TraceSpanLike[][] {
    const runs: TraceSpanLike[][] = [];
    let current: TraceSpanLike[] = [];
    const close = (): void => {
      const distinct = new Set(current.map((span) => span.toolId)).size;
      if (current.length >= this.#minMacroSteps && distinct >= 2) runs.push(current);
      current = [];
    };
    for (const span of spans) {
      if (isSuccess(span) && this.#isMacroTool(span.toolId)) {
        current.push(span);
        if (current.length === MAX_MACRO_STEPS) close();
      } else {
        close();
      }
    }
    close();
    return runs;
  }

  #macroOf(run: readonly TraceSpanLike[]): {
    name: string;
    description: string;
    params: MacroParam[];
    steps: MacroStep[];
  } {
    const steps = run.map((span) => ({
      tool: span.toolId,
      args: this.#argsTemplate?.(span) ?? {},
    }));
    const params = new Map<string, MacroParam>();
    for (const step of steps) {
      for (const match of JSON.stringify(step.args).matchAll(PLACEHOLDER)) {
        const name = match[1] as string;
        params.set(name, { name, type: 'string' });
      }
    }
    const tools = run.map((span) => span.toolId);
    let name = `auto.${tools.join('.')}`.replace(/[^A-Za-z0-9_.-]/g, '_');
    if (name.length > 100) {
      const digest = createHash('sha256').update(tools.join('\n')).digest('hex').slice(0, 10);
      name = `${name.slice(0, 89)}.${digest}`;
    }
    return {
      name,
      description: `Recorded sequence: ${tools.join(' → ')}`,
      params: [...params.values()],
      steps,
    };
  }
}

function isSuccess(span: TraceSpanLike): boolean {
  return span.outcome === 'success' || span.outcome === 'ok';
}

/**
 * The key pending calls are grouped under: the principal, then the session id (after the only
 * NUL, which neither a principal nor a session id holds).
 */
function sessionKey(sessionId: string, span: TraceSpanLike): string {
  return `${span.principalKind ?? 'local'}:${span.principal ?? 'local'}\u0000${sessionId}`;
}
