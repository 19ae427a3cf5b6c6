import { SYSTEM_CLOCK, type ToolClock } from '../contract/clock.js';
import type { CallPrincipal } from '../contract/tool.js';
import type { ToolResult } from '../contract/tool-result.js';

/** Sizes of the arguments of a call: never the values themselves, so exports leak no secrets. */
export interface ArgsDigest {
  /** Length of the arguments as JSON text. */
  readonly length: number;
  /** Printable characters in that text. */
  readonly printable: number;
  /**
   * Per top-level field: its JSON type, length and printable-character count. At most
   * {@link MAX_DIGEST_FIELDS} fields (the first ones), names cut to {@link MAX_DIGEST_KEY_LENGTH}
   * characters, so a span has a fixed maximum size whatever the caller sends.
   */
  readonly fields: Readonly<
    Record<string, { readonly type: string; readonly length: number; readonly printable: number }>
  >;
  /** Top-level fields beyond {@link MAX_DIGEST_FIELDS}, counted but not digested; absent when none. */
  readonly omittedFields?: number;
}

/** Fields a digest describes one by one; the rest are only counted (see `omittedFields`). */
export const MAX_DIGEST_FIELDS = 16;
/** Characters of a field name kept in a digest. */
export const MAX_DIGEST_KEY_LENGTH = 64;

/** One attempt of one tool call. */
export interface ToolTraceSpan {
  /** The call the attempt belongs to (shared by its retries). */
  readonly callId: string;
  /** The tool called. */
  readonly toolId: string;
  /** 1 for the first attempt; 0 for a call refused before it ran (gate, limiter, breaker). */
  readonly attempt: number;
  /** Wall-clock start, ms since the epoch. */
  readonly startedAt: number;
  /** How long the attempt took, in ms. */
  readonly durationMs: number;
  /** `ok`, or the failure code (`TIMEOUT`, `EXECUTION_FAILED` …). */
  readonly outcome: string;
  /** Sizes of the arguments, never their values. */
  readonly argsDigest: ArgsDigest;
  /** The id of the principal who called (an OAuth subject, a token's name, `local`), when known. */
  readonly principal?: string;
  /**
   * How that principal proved who it is (`oauth`, `token`, `local`): a token named `alice` is not
   * the OAuth subject `alice`.
   */
  readonly principalKind?: CallPrincipal['kind'];
  /** Kebab-case failure code, e.g. `execution-failed`; absent on success. */
  readonly errorSlug?: string;
}

/** A started attempt; complete it once (later completions are ignored). */
export interface TraceHandle {
  /** Records the span for this attempt; returns it, or undefined when already completed. */
  complete(result: ToolResult): ToolTraceSpan | undefined;
}

/** Latency figures of one tool, from the spans in the buffer. */
export interface ToolLatencySummary {
  /** The tool. */
  readonly toolId: string;
  /** Spans counted. */
  readonly count: number;
  /** Spans whose outcome is not `ok`. */
  readonly failures: number;
  /** Median duration in ms. */
  readonly p50Ms: number;
  /** 95th-percentile duration in ms. */
  readonly p95Ms: number;
  /** Longest duration in ms. */
  readonly maxMs: number;
  /** Counts per latency bucket, keyed by the bucket label (`<1ms`, `<10ms` … `>=10s`). */
  readonly buckets: Readonly<Record<string, number>>;
}

/** Options for {@link ToolTraceRecorder}. */
export interface ToolTraceRecorderOptions {
  /** Spans kept (a ring buffer). Default 200. */
  capacity?: number;
  /** Clock for durations. Default: the system clock. */
  clock?: ToolClock;
  /** Wall clock for `startedAt`. Default `Date.now`. */
  wallClock?: () => number;
}

/** Latency bucket upper bounds in ms, with their labels. */
export const LATENCY_BUCKETS: readonly { readonly below: number; readonly label: string }[] = [
  { below: 1, label: '<1ms' },
  { below: 10, label: '<10ms' },
  { below: 100, label: '<100ms' },
  { below: 1_000, label: '<1s' },
  { below: 10_000, label: '<10s' },
  { below: Number.POSITIVE_INFINITY, label: '>=10s' },
];

/** What {@link ToolTraceRecorder.record} needs besides the result. */
export interface SpanInit {
  /** The call the attempt belongs to. */
  readonly callId: string;
  /** The tool called. */
  readonly toolId: string;
  /** Attempt number (0: refused before running). */
  readonly attempt: number;
  /** The raw arguments; only their digest is kept. */
  readonly args: unknown;
  /** The id of the principal who called, when known. */
  readonly principal?: string | undefined;
  /** How that principal proved who it is, when known. */
  readonly principalKind?: CallPrincipal['kind'] | undefined;
  /** Start on the recorder's clock, in ms. */
  readonly started: number;
  /** Start on the wall clock, ms since the epoch; derived from the recorder's wall clock when absent. */
  readonly startedAt?: number;
}

/** A span being recorded: see {@link ToolTraceRecorder.open}. */
export type OpenSpan = { -readonly [K in keyof ToolTraceSpan]: ToolTraceSpan[K] };

class Handle implements TraceHandle {
  #done = false;
  readonly #recorder: ToolTraceRecorder;
  readonly #init: SpanInit;

  constructor(recorder: ToolTraceRecorder, init: SpanInit) {
    this.#recorder = recorder;
    this.#init = init;
  }

  complete(result: ToolResult): ToolTraceSpan | undefined {
    if (this.#done) return undefined;
    this.#done = true;
    return this.#recorder.record({ ...this.#init, result });
  }
}

/**
 * Records one span per attempt in a bounded ring buffer. Spans carry an argument digest (sizes and
 * character counts), never raw values. Listeners see every span; the buffer exports as JSON and
 * summarises latency as a histogram.
 */
export class ToolTraceRecorder {
  /** Spans kept at most. */
  readonly capacity: number;
  readonly #clock: ToolClock;
  readonly #wallClock: () => number;
  readonly #buffer: (ToolTraceSpan | undefined)[];
  #next = 0;
  #size = 0;
  readonly #listeners = new Set<(span: ToolTraceSpan) => void>();

  constructor(options: ToolTraceRecorderOptions = {}) {
    this.capacity = Math.max(1, Math.floor(options.capacity ?? 200));
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#wallClock = options.wallClock ?? Date.now;
    this.#buffer = new Array(this.capacity);
  }

  /** Starts an attempt; the span is recorded when the handle completes. */
  start(init: { callId: string; toolId: string; attempt: number; args: unknown }): TraceHandle {
    return new Handle(this, {
      ...init,
      started: this.#clock.now(),
      startedAt: this.#wallClock(),
    });
  }

  /** Records a finished attempt directly (used by handles). */
  record(init: SpanInit & { readonly result: ToolResult }): ToolTraceSpan {
    return this.close(this.open(init), init.started, init.result);
  }

  /**
   * Opens the span of an attempt that is running: all but its outcome and duration is filled in
   * now, so that the work (the argument digest, the allocation) can happen while the attempt's I/O
   * is in flight, off the call's critical path. {@link close} completes and records it; a span
   * never closed is never recorded.
   */
  open(init: SpanInit): OpenSpan {
    const elapsed = this.#clock.now() - init.started;
    return {
      callId: init.callId,
      toolId: init.toolId,
      attempt: init.attempt,
      startedAt: init.startedAt ?? this.#wallClock() - Math.max(0, elapsed),
      durationMs: 0,
      outcome: 'ok',
      argsDigest: digestArgs(init.args),
      ...(init.principal !== undefined ? { principal: init.principal } : {}),
      ...(init.principalKind !== undefined ? { principalKind: init.principalKind } : {}),
    };
  }

  /** Completes a span from {@link open} with the attempt's result and records it. */
  close(span: OpenSpan, started: number, result: ToolResult): ToolTraceSpan {
    span.durationMs = Math.max(0, this.#clock.now() - started);
    if (!result.ok) {
      span.outcome = result.error.code;
      span.errorSlug = result.error.code.toLowerCase().replaceAll('_', '-');
    }
    this.add(span);
    return span;
  }

  /** Adds a span recorded elsewhere (e.g. loaded from a file). */
  add(span: ToolTraceSpan): void {
    this.#buffer[this.#next] = span;
    this.#next = (this.#next + 1) % this.capacity;
    if (this.#size < this.capacity) this.#size += 1;
    if (this.#listeners.size === 0) return;
    for (const listener of this.#listeners) {
      try {
        listener(span);
      } catch {
        // A failing listener must not fail the call being traced.
      }
    }
  }

  /** Number of spans in the buffer. */
  get size(): number {
    return this.#size;
  }

  /** The spans in the buffer, oldest first. */
  spans(): ToolTraceSpan[] {
    const out: ToolTraceSpan[] = [];
    const start = this.#size < this.capacity ? 0 : this.#next;
    for (let index = 0; index < this.#size; index += 1) {
      const span = this.#buffer[(start + index) % this.capacity];
      if (span) out.push(span);
    }
    return out;
  }

  /** Subscribes to new spans; returns the unsubscribe function. */
  onSpan(listener: (span: ToolTraceSpan) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The buffer as JSON text (an array of spans, oldest first). */
  exportJson(): string {
    return JSON.stringify(this.spans());
  }

  /** Latency summary per tool, sorted by tool id. */
  histogram(): ToolLatencySummary[] {
    return summariseLatency(this.spans());
  }

  /** A text report of the latency histogram. */
  report(): string {
    return renderLatencyReport(this.histogram());
  }

  /** Empties the buffer. */
  clear(): void {
    this.#buffer.fill(undefined);
    this.#next = 0;
    this.#size = 0;
  }
}

/**
 * Digests arguments into sizes and character counts; never copies a value. `length` and
 * `printable` total the fields' (string values count their characters, other values their JSON).
 */
export function digestArgs(args: unknown): ArgsDigest {
  const fields: Record<string, { type: string; length: number; printable: number }> = {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    const text = typeof args === 'string' ? args : safeJson(args);
    return { length: text.length, printable: countPrintable(text), fields };
  }
  let length = 0;
  let printable = 0;
  const record = args as Record<string, unknown>;
  // Own enumerable string keys, in for-in order.
  const keys = Object.keys(record);
  const described = Math.min(keys.length, MAX_DIGEST_FIELDS);
  for (let index = 0; index < described; index += 1) {
    const key = keys[index] as string;
    const value = record[key];
    let type: string;
    let valueText: string;
    if (typeof value === 'string') {
      type = 'string';
      valueText = value;
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      type = typeof value;
      valueText = String(value);
    } else {
      type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
      valueText = safeJson(value);
    }
    const fieldPrintable = countPrintable(valueText);
    fields[digestKey(key)] = { type, length: valueText.length, printable: fieldPrintable };
    length += valueText.length;
    printable += fieldPrintable;
  }
  if (keys.length > described) {
    return { length, printable, fields, omittedFields: keys.length - described };
  }
  return { length, printable, fields };
}

/** A field name as a digest keeps it: cut, and copied so a huge name is not retained. */
function digestKey(key: string): string {
  if (key.length <= MAX_DIGEST_KEY_LENGTH) return key;
  // A slice of a long string may keep the whole string alive; joining characters copies them.
  return `${Array.from(key.slice(0, MAX_DIGEST_KEY_LENGTH)).join('')}…`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is counted
const PRINTABLE_RUNS = /[^\u0000-\u001f\u007f]+/g;

function countPrintable(text: string): number {
  // A long text (a 10 Mi-character write) is counted by the regex engine: a loop here held the
  // thread every session shares for a fifth of a second.
  if (text.length > 4_096) return text.length - text.replace(PRINTABLE_RUNS, '').length;
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 0x20 && code !== 0x7f) count += 1;
  }
  return count;
}

/** Latency summary per tool from any list of spans, sorted by tool id. */
export function summariseLatency(spans: readonly ToolTraceSpan[]): ToolLatencySummary[] {
  const byTool = new Map<string, ToolTraceSpan[]>();
  for (const span of spans) {
    const list = byTool.get(span.toolId);
    if (list) list.push(span);
    else byTool.set(span.toolId, [span]);
  }
  return [...byTool.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([toolId, list]) => {
      const durations = list.map((span) => span.durationMs).sort((a, b) => a - b);
      const buckets: Record<string, number> = {};
      for (const { label } of LATENCY_BUCKETS) buckets[label] = 0;
      for (const duration of durations) {
        const bucket = LATENCY_BUCKETS.find(({ below }) => duration < below);
        if (bucket) buckets[bucket.label] = (buckets[bucket.label] ?? 0) + 1;
      }
      return {
        toolId,
        count: list.length,
        failures: list.filter((span) => span.outcome !== 'ok').length,
        p50Ms: percentile(durations, 0.5),
        p95Ms: percentile(durations, 0.95),
        maxMs: durations[durations.length - 1] ?? 0,
        buckets,
      };
    });
}

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1);
  return round(sorted[Math.max(0, index)] ?? 0);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Renders latency summaries as a fixed-width text table. */
export function renderLatencyReport(summaries: readonly ToolLatencySummary[]): string {
  if (summaries.length === 0) return 'No spans recorded.';
  const labels = LATENCY_BUCKETS.map(({ label }) => label);
  const header = ['tool', 'calls', 'fail', 'p50 ms', 'p95 ms', 'max ms', ...labels];
  const rows = summaries.map((summary) => [
    summary.toolId,
    String(summary.count),
    String(summary.failures),
    String(summary.p50Ms),
    String(summary.p95Ms),
    String(round(summary.maxMs)),
    ...labels.map((label) => String(summary.buckets[label] ?? 0)),
  ]);
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
