import { randomBytes } from 'node:crypto';

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

/**
 * What output shows instead of a session's mark key wherever a program prints it (`set`, `env`,
 * `echo $PROMPT_COMMAND`), so that the key never reaches a reader of the output.
 */
export const HIDDEN_MARK_KEY = '[mark-key]';

/**
 * What output shows instead of the introducer of a mark that is not the session's own (a file
 * or program printing `ESC ] 6973 ;`): the escape as a visible symbol, so the forgery reads as text.
 */
export const FORGED_MARK_INTRODUCER = `\u241b]${MARK_OSC};`;

const PREFIX = Buffer.from(`\u001b]${MARK_OSC};`);
const FORGED = Buffer.from(FORGED_MARK_INTRODUCER);
const HIDDEN = Buffer.from(HIDDEN_MARK_KEY);
const BEL = 0x07;
/** A mark longer than this is not ours: its introducer is shown as text. */
const MAX_MARK_BYTES = 64;

/**
 * A new secret for one session's marks: `§` then 32 hex digits (128 random bits). It starts with
 * a character outside ASCII so that output is held back for a possible split key only when a
 * chunk ends inside a UTF-8 sequence, which is incomplete text anyway.
 */
export function newMarkKey(): string {
  return `\u00a7${randomBytes(16).toString('hex')}`;
}

/** The bytes a shell prints for a mark of the session whose key is `key` (scripts and tests). */
export function renderMark(mark: ShellMark, key: string): string {
  return mark.kind === 'start'
    ? `\u001b]${MARK_OSC};S;${key}\u0007`
    : `\u001b]${MARK_OSC};P;${key};${mark.exitCode ?? ''}\u0007`;
}

/**
 * Removes one session's shell-integration marks from a byte stream split at arbitrary points,
 * returning the remaining bytes and the marks in stream order. Only marks carrying the session's
 * secret key count: anything else that looks like a mark (a file being `cat`, a hostile program)
 * is data, its introducer shown as text, and the key itself never appears in the data.
 */
export class MarkFilter {
  private pending: Buffer = Buffer.alloc(0);
  private readonly key: Buffer;
  private readonly keyText: string;

  /** @param key The session's secret mark key ({@link newMarkKey}). */
  constructor(key: string) {
    if (key.length < 16) throw new RangeError('a mark key must have at least 16 characters');
    this.keyText = key;
    this.key = Buffer.from(key);
  }

  /** Filters the next chunk. Bytes that may start a mark or the key are held until complete. */
  push(chunk: Buffer): MarkedPiece[] {
    let input = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    const pieces: MarkedPiece[] = [];
    const data = (bytes: Buffer): void => {
      if (bytes.length > 0) pieces.push({ kind: 'data', data: bytes });
    };
    for (;;) {
      const index = input.indexOf(PREFIX);
      const keyIndex = input.indexOf(this.key);
      if (keyIndex >= 0 && (index < 0 || keyIndex < index)) {
        data(input.subarray(0, keyIndex));
        data(HIDDEN);
        input = input.subarray(keyIndex + this.key.length);
        continue;
      }
      if (index < 0) {
        const keep = Math.max(
          partialPrefixLength(input, PREFIX),
          partialPrefixLength(input, this.key),
        );
        data(input.subarray(0, input.length - keep));
        if (keep > 0) this.pending = Buffer.from(input.subarray(input.length - keep));
        return pieces;
      }
      data(input.subarray(0, index));
      const end = input.indexOf(BEL, index + PREFIX.length);
      if (end < 0 && input.length - index <= MAX_MARK_BYTES) {
        this.pending = Buffer.from(input.subarray(index));
        return pieces;
      }
      const mark =
        end < 0 || end - index > MAX_MARK_BYTES
          ? undefined
          : parseMark(input.subarray(index + PREFIX.length, end).toString('utf8'), this.keyText);
      if (mark === undefined) {
        // Not ours: the introducer shows as text and the rest is scanned again (the key inside
        // a forgery that guessed its form is still hidden).
        data(FORGED);
        input = input.subarray(index + PREFIX.length);
        continue;
      }
      pieces.push({ kind: 'mark', mark });
      input = input.subarray(end + 1);
    }
  }

  /** Returns bytes held back at the end of the stream (an unfinished mark is data after all). */
  flush(): Buffer {
    let rest = this.pending;
    this.pending = Buffer.alloc(0);
    if (rest.indexOf(PREFIX) === 0) rest = Buffer.concat([FORGED, rest.subarray(PREFIX.length)]);
    const latin1 = rest.toString('latin1');
    const key = this.key.toString('latin1');
    return latin1.includes(key)
      ? Buffer.from(latin1.split(key).join(HIDDEN_MARK_KEY), 'latin1')
      : rest;
  }
}

function parseMark(body: string, key: string): ShellMark | undefined {
  if (body === `S;${key}`) return { kind: 'start' };
  const head = `P;${key};`;
  if (!body.startsWith(head)) return undefined;
  const code = body.slice(head.length);
  if (!/^-?\d{0,5}$/.test(code)) return undefined;
  return { kind: 'prompt', exitCode: code === '' ? null : Number(code) };
}

/** Length of the longest suffix of `input` that is a proper prefix of `needle`. */
function partialPrefixLength(input: Buffer, needle: Buffer): number {
  const max = Math.min(needle.length - 1, input.length);
  for (let length = max; length > 0; length -= 1) {
    if (input.subarray(input.length - length).equals(needle.subarray(0, length))) return length;
  }
  return 0;
}
