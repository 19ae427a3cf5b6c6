import { describe, expect, it } from 'vitest';
import { encodeKey, toPlainText } from './terminal-keys.js';

describe('encodeKey', () => {
  it('encodes named keys, control and meta chords case-insensitively', () => {
    expect(encodeKey('Enter')).toBe('\r');
    expect(encodeKey('up')).toBe('\u001b[A');
    expect(encodeKey('C-c')).toBe('\u0003');
    expect(encodeKey('Ctrl-D')).toBe('\u0004');
    expect(encodeKey('C-\\')).toBe('\u001c');
    expect(encodeKey('M-b')).toBe('\u001bb');
    expect(encodeKey('Alt-Enter')).toBe('\u001b\r');
  });

  it('returns undefined for names that are not keys', () => {
    expect(encodeKey('Enterr')).toBeUndefined();
    expect(encodeKey('C-1')).toBeUndefined();
    expect(encodeKey('')).toBeUndefined();
  });
});

describe('toPlainText', () => {
  it('removes colours, titles and carriage-return overwrites', () => {
    expect(toPlainText('\u001b[1;31mred\u001b[0m\r\n')).toBe('red\n');
    expect(toPlainText('\u001b]0;title\u0007ok')).toBe('ok');
    expect(toPlainText('10%\r50%\r100%\r\ndone')).toBe('100%\ndone');
  });
});
