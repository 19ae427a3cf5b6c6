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
/** How the credential shapes start (see SECRET_VALUE_SHAPES): a line that may open a fold. */
const CREDENTIAL_START =
  /gh[pousr]_|github_pat_|sk-|[rs]k_(?:live|test)|whsec_|xox[abprs]-|xapp-|npm_|hf_|gl[a-z]{2,5}-|AKIA|ASIA|AIza|eyJ|SG\.|LS0tLS1|AccountKey|SharedAccessKey|:\/\//;
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
  // Hold back the last complete short lines without spaces from one that starts like a
  // credential on: the first pieces of a folded credential. Other lines are shown at once.
  let start = cut;
  for (let held = 0; start > 0 && held < MAX_FOLDED_LINES; held += 1) {
    const previous = text.lastIndexOf('\n', start - 2) + 1;
    const line = text.slice(previous, start - 1);
    if (!FOLDED_PIECE.test(line)) break;
    start = previous;
    if (CREDENTIAL_START.test(line)) cut = start;
  }
  if (text.length - cut <= maxHeld) return cut;
  const space = text.slice(0, text.length - 256).search(/\s\S*$/);
  return space > cut ? space + 1 : text.length - 256;
}
