const NAMED_KEYS: Readonly<Record<string, string>> = {
  enter: '\r',
  return: '\r',
  tab: '\t',
  'shift-tab': '\u001b[Z',
  esc: '\u001b',
  escape: '\u001b',
  space: ' ',
  backspace: '\u007f',
  delete: '\u001b[3~',
  insert: '\u001b[2~',
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
  home: '\u001b[H',
  end: '\u001b[F',
  pageup: '\u001b[5~',
  pagedown: '\u001b[6~',
  f1: '\u001bOP',
  f2: '\u001bOQ',
  f3: '\u001bOR',
  f4: '\u001bOS',
  f5: '\u001b[15~',
  f6: '\u001b[17~',
  f7: '\u001b[18~',
  f8: '\u001b[19~',
  f9: '\u001b[20~',
  f10: '\u001b[21~',
  f11: '\u001b[23~',
  f12: '\u001b[24~',
};

/** Key names accepted by {@link encodeKey}, for messages and docs. */
export const KEY_NAMES_HELP =
  'Enter, Tab, Shift-Tab, Esc, Space, Backspace, Delete, Insert, Up, Down, Left, Right, Home, End, PageUp, PageDown, F1-F12, C-a … C-z, C-[, C-\\, C-], C-@, M-<key> (Alt)';

/**
 * The bytes a terminal sends for a named key (`Enter`, `Up`, `C-c`, `Ctrl-D`, `M-b`), or undefined
 * for a name that is not a key. Names are case-insensitive.
 */
export function encodeKey(name: string): string | undefined {
  const lower = name.trim().toLowerCase();
  const named = NAMED_KEYS[lower];
  if (named !== undefined) return named;
  const control = /^(?:c|ctrl|control)[-+](.)$/.exec(lower);
  if (control?.[1] !== undefined) {
    const char = control[1];
    if (char >= 'a' && char <= 'z') return String.fromCharCode(char.charCodeAt(0) - 96);
    const specials: Record<string, string> = {
      '@': '\u0000',
      ' ': '\u0000',
      '[': '\u001b',
      '\\': '\u001c',
      ']': '\u001d',
      '^': '\u001e',
      _: '\u001f',
      '?': '\u007f',
    };
    return specials[char];
  }
  const meta = /^(?:m|alt|meta)[-+](.+)$/i.exec(name.trim());
  if (meta?.[1] !== undefined) {
    const inner = meta[1].length === 1 ? meta[1] : encodeKey(meta[1]);
    return inner === undefined ? undefined : `\u001b${inner}`;
  }
  return undefined;
}

// CSI, OSC (BEL or ST terminated), other two-byte escapes, and lone control bytes except \n and \t.
const ANSI_PATTERN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal output is made of control bytes.
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[PX^_][^\u001b]*\u001b\\|\u001b[ -/]*[0-~]|[\u0000-\u0008\u000b-\u001f\u007f]/g;

/**
 * Plain text from raw terminal output: escape sequences removed, `\r\n` as `\n`, and a line
 * overwritten with `\r` (a progress bar) reduced to what was printed last.
 */
export function toPlainText(raw: string): string {
  const lines = raw.replace(/\r+\n/g, '\n').split('\n');
  return lines
    .map((line) => {
      const parts = line.split('\r');
      const last = parts.length > 1 ? lastNonEmpty(parts) : line;
      return last.replace(ANSI_PATTERN, '');
    })
    .join('\n');
}

function lastNonEmpty(parts: string[]): string {
  for (let index = parts.length - 1; index >= 0; index -= 1) {
    const part = parts[index];
    if (part !== undefined && part.replace(ANSI_PATTERN, '') !== '') return part;
  }
  return '';
}
