/** Options for {@link BoundedLog}. */
export interface BoundedLogOptions {
  /** Most characters kept; the oldest lines are dropped first. Default 64 KiB. */
  maxChars?: number;
  /** Longest single line kept; longer lines are cut with an ellipsis. Default 4 KiB. */
  maxLineChars?: number;
}

const DEFAULT_MAX_CHARS = 64 * 1024;
const DEFAULT_MAX_LINE_CHARS = 4 * 1024;

/**
 * A bounded in-memory log of text lines (a child process's stderr). Memory stays under `maxChars`
 * however much the process writes; the newest lines win.
 */
export class BoundedLog {
  readonly #maxChars: number;
  readonly #maxLineChars: number;
  readonly #lines: string[] = [];
  #chars = 0;
  #partial = '';
  #dropped = 0;

  constructor(options: BoundedLogOptions = {}) {
    this.#maxChars = Math.max(1, options.maxChars ?? DEFAULT_MAX_CHARS);
    this.#maxLineChars = Math.max(1, options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS);
  }

  /** Appends a chunk; complete lines are stored, a trailing partial line waits for its end. */
  append(chunk: string | Uint8Array): void {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const parts = (this.#partial + text).split(/\r?\n/);
    this.#partial = parts.pop() ?? '';
    if (this.#partial.length > this.#maxLineChars) {
      this.#push(this.#partial);
      this.#partial = '';
    }
    for (const line of parts) this.#push(line);
  }

  /** The kept lines, oldest first, including an unterminated last line. */
  lines(): string[] {
    return this.#partial ? [...this.#lines, this.#partial] : [...this.#lines];
  }

  /** The last `count` lines. */
  tail(count: number): string[] {
    return this.lines().slice(-Math.max(0, count));
  }

  /** The kept text, lines joined by newlines. */
  text(): string {
    return this.lines().join('\n');
  }

  /** How many lines were dropped to stay within the bound. */
  get droppedLines(): number {
    return this.#dropped;
  }

  /** Empties the log. */
  clear(): void {
    this.#lines.length = 0;
    this.#chars = 0;
    this.#partial = '';
    this.#dropped = 0;
  }

  #push(raw: string): void {
    const line = raw.length > this.#maxLineChars ? `${raw.slice(0, this.#maxLineChars)}…` : raw;
    this.#lines.push(line);
    this.#chars += line.length + 1;
    while (this.#chars > this.#maxChars && this.#lines.length > 1) {
      const removed = this.#lines.shift() ?? '';
      this.#chars -= removed.length + 1;
      this.#dropped += 1;
    }
  }
}
