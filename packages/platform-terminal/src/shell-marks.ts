/** A shell-integration mark: the shell printed its prompt (with the last exit code) or began a command. */
export type ShellMark =
  | { readonly kind: 'prompt'; readonly exitCode: number | null }
  | { readonly kind: 'start' };

/** A piece of filtered output: plain bytes, or a mark that was removed from the stream. */
export type MarkedPiece =
  | { readonly kind: 'data'; readonly data: Buffer }
  | { readonly kind: 'mark'; readonly mark: ShellMark };

/**
 * The private OSC number of our marks. Terminals ignore unknown OSC sequences, and the filter
 * removes them before output reaches the ring or the screen, so the user never sees them.
 */
export const MARK_OSC = 6973;

const PREFIX = Buffer.from(`\u001b]${MARK_OSC};`);
const BEL = 0x07;
/** A mark longer than this is not ours: it is passed through as data. */
const MAX_MARK_BYTES = 64;

/** The bytes a shell prints for a mark (used by the integration scripts and tests). */
export function renderMark(mark: ShellMark): string {
  return mark.kind === 'start'
    ? `\u001b]${MARK_OSC};S\u0007`
    : `\u001b]${MARK_OSC};P;${mark.exitCode ?? ''}\u0007`;
}

/**
 * Removes shell-integration marks from a byte stream split at arbitrary points, returning the
 * remaining bytes and the marks in stream order.
 */
export class MarkFilter {
  private pending: Buffer = Buffer.alloc(0);

  /** Filters the next chunk. Bytes that may start a mark are held until the mark is complete. */
  push(chunk: Buffer): MarkedPiece[] {
    let input = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    const pieces: MarkedPiece[] = [];
    for (;;) {
      const index = input.indexOf(PREFIX);
      if (index < 0) {
        const keep = partialPrefixLength(input);
        if (input.length - keep > 0) {
          pieces.push({ kind: 'data', data: input.subarray(0, input.length - keep) });
        }
        if (keep > 0) this.pending = Buffer.from(input.subarray(input.length - keep));
        return pieces;
      }
      if (index > 0) pieces.push({ kind: 'data', data: input.subarray(0, index) });
      const end = input.indexOf(BEL, index + PREFIX.length);
      if (end < 0) {
        if (input.length - index <= MAX_MARK_BYTES) {
          this.pending = Buffer.from(input.subarray(index));
          return pieces;
        }
        pieces.push({ kind: 'data', data: input.subarray(index, index + PREFIX.length) });
        input = input.subarray(index + PREFIX.length);
        continue;
      }
      const body = input.subarray(index + PREFIX.length, end).toString('latin1');
      const mark = parseMark(body);
      if (mark === undefined) {
        pieces.push({ kind: 'data', data: input.subarray(index, end + 1) });
      } else {
        pieces.push({ kind: 'mark', mark });
      }
      input = input.subarray(end + 1);
    }
  }

  /** Returns bytes held back at the end of the stream (an unfinished mark is data after all). */
  flush(): Buffer {
    const rest = this.pending;
    this.pending = Buffer.alloc(0);
    return rest;
  }
}

function parseMark(body: string): ShellMark | undefined {
  if (body === 'S') return { kind: 'start' };
  const match = /^P;(-?\d{0,5})$/.exec(body);
  if (match === null) return undefined;
  const code = match[1] === '' || match[1] === undefined ? null : Number(match[1]);
  return { kind: 'prompt', exitCode: code };
}

/** Length of the longest suffix of `input` that is a proper prefix of the mark introducer. */
function partialPrefixLength(input: Buffer): number {
  const max = Math.min(PREFIX.length - 1, input.length);
  for (let length = max; length > 0; length -= 1) {
    if (input.subarray(input.length - length).equals(PREFIX.subarray(0, length))) return length;
  }
  return 0;
}
