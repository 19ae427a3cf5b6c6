import { createRequire } from 'node:module';

/**
 * Real token counts: o200k_base, the BPE of current OpenAI models (others' tokenizers land within a
 * few percent on the same text). The encoder (~2 MB of merge ranks) loads on the first count, never
 * at import, so a package that only imports this module stays cheap to start.
 *
 * Text is counted in pieces of at most {@link MAX_PIECE_CHARACTERS} characters, cut before a space
 * or line break where one exists: BPE on one long run without spaces is quadratic, and outside text
 * must never block the event loop. A cut before a space lands on a pre-token boundary, so the sum is
 * exact for ordinary text; a forced cut inside a long run can only add a token, so a count is never
 * below the true one — which is what a budget needs.
 */
export const MAX_PIECE_CHARACTERS = 256;

type EncodingCounter = (text: string) => number;

let o200kCount: EncodingCounter | undefined;

function encodingCounter(): EncodingCounter {
  if (o200kCount === undefined) {
    const load = createRequire(import.meta.url);
    const encoding = load('gpt-tokenizer/encoding/o200k_base') as {
      countTokens: (text: string, options: { disallowedSpecial: Set<string> }) => number;
    };
    // Outside text may spell a special token (`<|endoftext|>`): it is counted as the plain text
    // it is, as an API counts user content, instead of throwing.
    const plain = { disallowedSpecial: new Set<string>() };
    o200kCount = (text) => encoding.countTokens(text, plain);
  }
  return o200kCount;
}

/** Number of o200k tokens in `text` (never below the true count; see {@link MAX_PIECE_CHARACTERS}). */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const count = encodingCounter();
  if (text.length <= MAX_PIECE_CHARACTERS) return count(text);
  let total = 0;
  for (let start = 0; start < text.length; ) {
    const end = pieceEnd(text, start);
    total += count(text.slice(start, end));
    start = end;
  }
  return total;
}

/** The longest prefix of `text` that fits in `maxTokens`, cut at a piece boundary. */
export interface TokenPrefix {
  /** The kept text: `text` itself when it fits. */
  text: string;
  /** Tokens in the kept text. */
  tokens: number;
  /** Whether all of `text` was kept. */
  complete: boolean;
}

/**
 * Keeps as much of `text` as fits in `maxTokens`, counting piece by piece and stopping at the budget,
 * so the work is bounded by the budget rather than by the length of the text.
 */
export function takeTokens(text: string, maxTokens: number): TokenPrefix {
  const count = text.length === 0 ? undefined : encodingCounter();
  let tokens = 0;
  let start = 0;
  while (count !== undefined && start < text.length) {
    const end = pieceEnd(text, start);
    const pieceTokens = count(text.slice(start, end));
    if (tokens + pieceTokens > maxTokens)
      return { text: text.slice(0, start), tokens, complete: false };
    tokens += pieceTokens;
    start = end;
  }
  return { text, tokens, complete: true };
}

function pieceEnd(text: string, start: number): number {
  const limit = start + MAX_PIECE_CHARACTERS;
  if (limit >= text.length) return text.length;
  for (let index = limit; index > start + MAX_PIECE_CHARACTERS / 2; index -= 1) {
    const code = text.charCodeAt(index);
    if (code === 0x20 || code === 0x0a) return index;
  }
  // No break near the limit: cut there, but never between the halves of a surrogate pair.
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}
