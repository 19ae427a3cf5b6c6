/// <reference path="./mvdan-sh.d.ts" />
/**
 * Words of the mvdan/sh syntax tree as the arguments a command receives: quote removal, `$'…'`
 * escapes, `$HOME`, brace expansion; anything known only at run time becomes `null`.
 */
import type { ShNode, ShSyntax } from 'mvdan-sh';
import { escapePattern, expandBraces, hasUnescapedGlob, removeEscapes } from './brace-expansion.js';

/** Reads the values of shell words, remembering which of them hold an unquoted glob. */
export class WordReader {
  /** Values that hold an unquoted glob character. */
  readonly globbed = new Set<string>();

  constructor(private readonly syntax: ShSyntax) {}

  /** The literal value of a word after quote removal, or null when it depends on run time. */
  value(word: ShNode): string | null {
    const values = this.values(word);
    return values.length === 1 ? (values[0] ?? null) : null;
  }

  /**
   * The words one shell word becomes after brace expansion (anywhere in the word, as bash does:
   * `{/etc/passw,}d`, `a{1..3}b`) and quote removal; `[null]` when it depends on run time or
   * expands to too many words.
   */
  values(word: ShNode): (string | null)[] {
    let pattern = '';
    for (const part of (word.Parts as ShNode[] | undefined) ?? []) {
      const piece = this.partValue(part, false);
      if (piece === null) return [null];
      pattern += piece;
    }
    const expanded = expandBraces(pattern);
    if (expanded === null) return [null];
    return expanded.map((value) => {
      const plain = removeEscapes(value);
      if (hasUnescapedGlob(value)) this.globbed.add(plain);
      return plain;
    });
  }

  /**
   * One part of a word as a pattern: unquoted text keeps its backslash escapes; quoted text has
   * every special character escaped, so that brace expansion and globbing leave it alone.
   */
  private partValue(part: ShNode, quoted: boolean): string | null {
    switch (this.syntax.NodeType(part)) {
      case 'Lit': {
        const text = String(part.Value ?? '');
        return quoted
          ? escapePattern(
              text.replace(/\\([$`"\\\n])/g, (_match, char: string) => (char === '\n' ? '' : char)),
            )
          : text;
      }
      case 'SglQuoted': {
        const text = String(part.Value ?? '');
        return escapePattern(part.Dollar === true ? decodeAnsiC(text) : text);
      }
      case 'DblQuoted': {
        let value = '';
        for (const inner of (part.Parts as ShNode[] | undefined) ?? []) {
          const piece = this.partValue(inner, true);
          if (piece === null) return null;
          value += piece;
        }
        return value;
      }
      case 'ParamExp': {
        const parameter = (part.Param as { Value?: string } | null)?.Value;
        const plain =
          part.Exp == null &&
          part.Repl == null &&
          part.Slice == null &&
          part.Index == null &&
          part.Excl !== true &&
          part.Length !== true;
        // `$HOME` is resolved to `~` so that `rm -rf "$HOME"` is recognised as the home.
        return plain && parameter === 'HOME' ? (quoted ? '\\~' : '~') : null;
      }
      default:
        return null;
    }
  }
}

/** Decodes the escapes of bash's `$'…'` quoting. */
function decodeAnsiC(text: string): string {
  return text.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/g,
    (_match, sequence: string) => {
      const kind = sequence[0];
      if (kind === 'x' || kind === 'u' || kind === 'U') {
        const code = Number.parseInt(sequence.slice(1), 16);
        return code <= 0x10ffff ? String.fromCodePoint(code) : '';
      }
      if (/^[0-7]/.test(sequence)) return String.fromCharCode(Number.parseInt(sequence, 8) & 0xff);
      if (kind === 'c') return String.fromCharCode(sequence.charCodeAt(1) & 0x1f);
      const simple: Record<string, string> = {
        n: '\n',
        t: '\t',
        r: '\r',
        a: '\x07',
        b: '\b',
        e: '\x1b',
        E: '\x1b',
        f: '\f',
        v: '\v',
      };
      return simple[sequence] ?? sequence;
    },
  );
}
