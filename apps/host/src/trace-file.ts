// The host's trace file: spans appended as JSON lines under the data directory, rotated once, and
// read back by `toolsys trace` and by the next invocation.
import { appendFileSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolTraceSpan } from '@toolsys/core-tool-registry';

/** Spans the host keeps in memory. */
export const HOST_TRACE_CAPACITY = 300;
/** The trace file in the data directory. */
export const TRACE_FILE_NAME = 'traces.jsonl';
/** The trace file is rotated (to `traces.1.jsonl`) when it grows past this many bytes. */
export const TRACE_FILE_MAX_BYTES = 1_000_000;

/**
 * Appends spans to a JSONL file, batched per event-loop turn; rotates the file to `.1.jsonl` when it
 * passes {@link TRACE_FILE_MAX_BYTES}. Write failures disable the file, never the call.
 */
export class TraceFileWriter {
  readonly #file: string;
  #pending: string[] = [];
  #scheduled = false;
  #size: number | undefined;
  #broken = false;

  constructor(file: string) {
    this.#file = file;
  }

  append(span: ToolTraceSpan): void {
    if (this.#broken) return;
    this.#pending.push(JSON.stringify(span));
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.#scheduled = false;
    if (this.#pending.length === 0 || this.#broken) return;
    const text = `${this.#pending.join('\n')}\n`;
    this.#pending = [];
    try {
      if (this.#size === undefined) {
        mkdirSync(join(this.#file, '..'), { recursive: true });
        this.#size = fileSize(this.#file);
      }
      if (this.#size + text.length > TRACE_FILE_MAX_BYTES && this.#size > 0) {
        renameSync(this.#file, rotatedName(this.#file));
        this.#size = 0;
      }
      appendFileSync(this.#file, text, 'utf8');
      this.#size += Buffer.byteLength(text);
    } catch {
      // Tracing to disk is best effort: a read-only data directory must not break tool calls.
      this.#broken = true;
    }
  }
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function rotatedName(file: string): string {
  return file.replace(/\.jsonl$/, '.1.jsonl');
}

/**
 * Reads the newest `limit` spans from a trace file and its rotated predecessor, oldest first.
 * Missing files are empty; malformed lines are skipped.
 */
export function readTraceFile(file: string, limit = Number.POSITIVE_INFINITY): ToolTraceSpan[] {
  const spans: ToolTraceSpan[] = [];
  for (const path of [rotatedName(file), file]) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const span = JSON.parse(line) as ToolTraceSpan;
        if (typeof span.toolId === 'string' && typeof span.durationMs === 'number')
          spans.push(span);
      } catch {
        // A line cut by a crash is skipped.
      }
    }
  }
  return spans.length > limit ? spans.slice(spans.length - limit) : spans;
}
