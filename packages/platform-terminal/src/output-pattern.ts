import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { compileLinearRegex } from '@toolsys/platform';
import { toPlainText } from './terminal-keys.js';

/** Raw bytes searched in one step; the event loop runs between steps. */
export const PATTERN_CHUNK_BYTES = 16 * 1024;
/**
 * Bytes of output searched again before new output, so that a match split between two reads (or
 * two steps) is found: a match is found when it lies within this many bytes of raw output.
 */
export const PATTERN_OVERLAP_BYTES = 4 * 1024;

/** Where a {@link PatternScanner} reads output from: a session's ring. */
export interface PatternSource {
  /** Offset just after the newest byte. */
  readonly outputEnd: number;
  /** Bytes from `cursor` (at most `maxBytes`); `from` is where they really start. */
  read(cursor: number, maxBytes?: number): { readonly data: Buffer; readonly from: number };
}

/**
 * Finds a pattern from the model in new terminal output without ever blocking the process: the
 * pattern runs on the linear-time engine (RE2, so `(a+)+$` cannot blow up), and only output not
 * searched yet is read, in steps of {@link PATTERN_CHUNK_BYTES} with the event loop free between
 * them, each step overlapping the previous one by {@link PATTERN_OVERLAP_BYTES}.
 */
export class PatternScanner {
  private readonly regex: ReturnType<typeof compileLinearRegex>;
  private scanned: number;
  private readonly from: number;

  /**
   * Compiles `pattern` (multi-line: `^` and `$` match at line breaks); throws a ToolError
   * INVALID_ARGUMENT naming `field` for a pattern RE2 cannot run or parse.
   */
  constructor(pattern: string, from: number, field = 'pattern') {
    this.regex = compileLinearRegex(pattern, { multiline: true }, field);
    this.from = from;
    this.scanned = from;
  }

  /** Searches the output that arrived since the last call; returns the matched text, or undefined. */
  async scan(source: PatternSource): Promise<string | undefined> {
    while (this.scanned < source.outputEnd) {
      const start = Math.max(this.from, this.scanned - PATTERN_OVERLAP_BYTES);
      const read = source.read(start, PATTERN_CHUNK_BYTES + (this.scanned - start));
      if (read.data.length === 0) return undefined;
      const found = this.find(toPlainText(read.data.toString('utf8')));
      this.scanned = read.from + read.data.length;
      if (found !== undefined) return found;
      if (this.scanned < source.outputEnd) await yieldToEventLoop();
    }
    return undefined;
  }

  /** The first match in a text, or undefined (a pure step, exported for tests through scan). */
  private find(text: string): string | undefined {
    const matcher = this.regex.matcher(text);
    return matcher.find() ? (matcher.group() ?? '') : undefined;
  }
}
