import { REDACTED, scrubSecrets } from './secret-scrubber.js';

/** Scrubs a text that arrives in chunks (streamed command output) with {@link scrubSecrets}. */
export interface SecretStreamScrubber {
  /** The scrubbed text that can be shown now; the end of the chunk may be held back. */
  push(chunk: string): string;
  /** The scrubbed rest held back, at the end of the stream. */
  flush(): string;
}

/** Options for {@link createSecretStreamScrubber}. */
export interface SecretStreamScrubberOptions {
  /** Known secret values, replaced wherever they appear (as in {@link scrubSecrets}). */
  readonly knownValues?: readonly string[];
  /**
   * Most characters held back after the last line break while waiting for the rest of a line.
   * Default 1024, at least 512: past it, text is released up to its last white space.
   */
  readonly maxHeldChars?: number;
}

const BEGIN_KEY = /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----/;
const END_KEY = /-----END [A-Z ]{0,40}PRIVATE KEY-----/;
/** Longest END line, kept when a key's body is dropped in case the line is split over chunks. */
const END_KEY_MAX = 64;
/** A line that may be one piece of a folded credential: no white space, at most this long. */
const FOLDED_PIECE = /^\S{1,200}$/;
/** Most lines held back as a possible folded credential. */
const MAX_FOLDED_LINES = 16;

/**
 * A scrubber for streamed text that carries its state across chunks: a credential split between
 * two chunks is held back until its line is complete, a private key's body is dropped until its
 * END line arrives however many chunks it spans, and short lines that may be a folded credential
 * are held back until the fold ends. What it releases is what {@link scrubSecrets} would show
 * for the whole text, line by line.
 */
export function createSecretStreamScrubber(
  options: SecretStreamScrubberOptions = {},
): SecretStreamScrubber {
  const knownValues = options.knownValues ?? [];
  const maxHeld = Math.max(512, options.maxHeldChars ?? 1024);
  let pending = '';
  let insideKey = false;
  const scrub = (text: string) => scrubSecrets(text, knownValues);

  const release = (final: boolean): string => {
    let output = '';
    for (;;) {
      if (insideKey) {
        const end = END_KEY.exec(pending);
        if (end === null) {
          pending = final ? '' : pending.slice(-END_KEY_MAX);
          return output;
        }
        output += end[0];
        pending = pending.slice(end.index + end[0].length);
        insideKey = false;
        continue;
      }
      const begin = BEGIN_KEY.exec(pending);
      if (begin !== null) {
        output += `${scrub(pending.slice(0, begin.index))}${begin[0]}\n${REDACTED}\n`;
        pending = pending.slice(begin.index + begin[0].length);
        insideKey = true;
        continue;
      }
      if (final) {
        output += scrub(pending);
        pending = '';
        return output;
      }
      const cut = releasePoint(pending, maxHeld);
      output += scrub(pending.slice(0, cut));
      pending = pending.slice(cut);
      return output;
    }
  };

  return {
    push: (chunk) => {
      pending += chunk;
      return release(false);
    },
    flush: () => release(true),
  };
}

/**
 * Where held text can be cut: after the last line break, before trailing lines that may be a
 * folded credential and before a partial `-----BEGIN` line; past `maxHeld` characters, at the
 * last white space or anywhere.
 */
function releasePoint(text: string, maxHeld: number): number {
  let cut = text.lastIndexOf('\n') + 1;
  // Hold back complete short lines without spaces: the first pieces of a folded credential.
  let held = 0;
  while (cut > 0 && held < MAX_FOLDED_LINES) {
    const previous = text.lastIndexOf('\n', cut - 2) + 1;
    if (!FOLDED_PIECE.test(text.slice(previous, cut - 1))) break;
    cut = previous;
    held += 1;
  }
  if (text.length - cut <= maxHeld) return cut;
  const space = text.slice(0, text.length - 256).search(/\s\S*$/);
  return space > cut ? space + 1 : text.length - 256;
}
