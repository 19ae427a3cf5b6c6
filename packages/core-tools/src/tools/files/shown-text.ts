import { escapeInvisible } from '@toolsys/core-tool-registry/text';

/**
 * One line of a file as the model is shown it: control, bidi, zero-width and tag characters as
 * visible escapes (`\u202e`, `\x1b`, `\u{e0041}`), as editors show Trojan Source, so what a person
 * would not see is seen and never obeyed. Tabs stay; a line's closing CR (a CRLF file) stays as it
 * is, since it ends the line rather than hiding anything.
 */
export function showFileLine(line: string): string {
  const crlf = line.endsWith('\r');
  const body = escapeInvisible(crlf ? line.slice(0, -1) : line, { keepNewlines: true });
  return crlf ? `${body}\r` : body;
}

/** `\xHH`, `\uHHHH` and `\u{H…}`: the escapes {@link showFileLine} writes. */
const SHOWN_ESCAPE = /\\x([0-9a-fA-F]{2})|\\u\{([0-9a-fA-F]{1,6})\}|\\u([0-9a-fA-F]{4})/g;

/**
 * Reads the escapes {@link showFileLine} writes back as the characters they stand for, so text a
 * model copied from `read_file` matches the file. Only escapes of characters that are shown
 * escaped are read (`\u0041` stays as written); `\n`, `\r` and `\t` stay as written too.
 */
export function readShownEscapes(text: string): { text: string; decoded: number } {
  let decoded = 0;
  const result = text.replace(
    SHOWN_ESCAPE,
    (sequence, hex2?: string, braced?: string, hex4?: string) => {
      const code = Number.parseInt(hex2 ?? braced ?? hex4 ?? '', 16);
      if (!Number.isInteger(code) || code > 0x10ffff) return sequence;
      const char = String.fromCodePoint(code);
      if (char === '\n' || char === '\r' || char === '\t' || escapeInvisible(char) === char) {
        return sequence;
      }
      decoded += 1;
      return char;
    },
  );
  return { text: result, decoded };
}
