/** `ESC ]` operating-system commands (window titles, hyperlinks), ended by BEL or `ESC \`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const OSC = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g;
/** `ESC P`, `ESC X`, `ESC ^`, `ESC _` strings (device control, privacy, application), ended by `ESC \`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CONTROL_STRING = /\u001b[PX^_][^\u001b]*(?:\u001b\\)?/g;
/** Control sequences: `ESC [` or the 8-bit CSI, parameters, intermediates, a final byte. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CSI = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?/g;
/** Any other escape: `ESC`, intermediates, a final byte. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const OTHER_ESCAPE = /\u001b[ -/]*[0-~]?/g;
/** C0 and C1 control characters other than tab and newline, and DEL. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const HAS_CONTROL_CHARACTER = new RegExp(CONTROL_CHARACTERS.source);

/**
 * Removes terminal escape sequences (colours, cursor movement, window titles, hyperlinks) and
 * other control characters from text a remote server sent, keeping newlines and tabs; CRLF
 * becomes LF. The model reads plain text, and nothing the server sends can drive the terminal
 * of a person reading it.
 */
export function stripTerminalControls(text: string): string {
  // Most text has no control character at all: leave it untouched.
  if (!HAS_CONTROL_CHARACTER.test(text)) return text;
  return text
    .replace(OSC, '')
    .replace(CONTROL_STRING, '')
    .replace(CSI, '')
    .replace(OTHER_ESCAPE, '')
    .replaceAll('\r\n', '\n')
    .replace(CONTROL_CHARACTERS, '');
}
