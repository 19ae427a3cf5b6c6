import { describe, expect, it } from 'vitest';
import { clipMiddle, showDirectory, utf8SafeLength } from './tool-support.js';

describe('clipMiddle', () => {
  it('keeps head and tail and says how much was left out', () => {
    const clipped = clipMiddle('a'.repeat(50) + 'b'.repeat(50), 20);
    expect(clipped.truncated).toBe(true);
    expect(clipped.omittedChars).toBe(80);
    expect(clipped.text.startsWith('a'.repeat(10))).toBe(true);
    expect(clipped.text.endsWith('b'.repeat(10))).toBe(true);
    expect(clipped.text).toContain('[80 characters left out]');
    expect(clipMiddle('short', 20)).toEqual({ text: 'short', truncated: false, omittedChars: 0 });
  });
});

describe('utf8SafeLength', () => {
  it('cuts before an incomplete UTF-8 sequence and keeps complete ones', () => {
    const euro = Buffer.from('ab€');
    expect(utf8SafeLength(euro)).toBe(5);
    expect(utf8SafeLength(euro.subarray(0, 4))).toBe(2);
    expect(utf8SafeLength(euro.subarray(0, 3))).toBe(2);
    const emoji = Buffer.from('x😀');
    expect(utf8SafeLength(emoji.subarray(0, 4))).toBe(1);
    expect(utf8SafeLength(emoji)).toBe(5);
    expect(utf8SafeLength(Buffer.alloc(0))).toBe(0);
  });
});

describe('showDirectory', () => {
  it('shows folders relative to the workspace and others as they are', () => {
    expect(showDirectory('/w', '/w')).toBe('.');
    expect(showDirectory('/w', '/w/a/b')).toBe('a/b');
    expect(showDirectory('/w', '/tmp')).toBe('/tmp');
    expect(showDirectory('/w', undefined)).toBeNull();
  });
});
