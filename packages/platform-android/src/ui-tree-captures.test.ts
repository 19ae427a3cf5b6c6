import { describe, expect, it } from 'vitest';
import { type UiTreeCapture, UiTreeCaptures } from './ui-tree-captures.js';

function capture(token: string, bounds = false): UiTreeCapture {
  return { token, bounds, lines: [] };
}

describe('UiTreeCaptures', () => {
  it('finds a kept capture by device and token, and no other device has it', () => {
    const captures = new UiTreeCaptures();
    captures.keep('emulator-5554', capture('0000000a'));
    expect(captures.find('emulator-5554', '0000000a')).toEqual(capture('0000000a'));
    expect(captures.find('emulator-5556', '0000000a')).toBeUndefined();
    expect(captures.find('emulator-5554', '0000000b')).toBeUndefined();
  });

  it('keeps the newest captures of a device up to its bound', () => {
    const captures = new UiTreeCaptures({ perDevice: 2 });
    for (const token of ['0000000a', '0000000b', '0000000c']) captures.keep('d', capture(token));
    expect(captures.find('d', '0000000a')).toBeUndefined();
    expect(captures.find('d', '0000000b')).toBeDefined();
    expect(captures.latest('d', false)?.token).toBe('0000000c');
  });

  it('makes a capture kept again the newest instead of keeping it twice', () => {
    const captures = new UiTreeCaptures({ perDevice: 2 });
    captures.keep('d', capture('0000000a'));
    captures.keep('d', capture('0000000b'));
    captures.keep('d', capture('0000000a'));
    captures.keep('d', capture('0000000c'));
    expect(captures.find('d', '0000000a')).toBeDefined();
    expect(captures.find('d', '0000000b')).toBeUndefined();
  });

  it('drops the device used least recently past the device bound', () => {
    const captures = new UiTreeCaptures({ devices: 2 });
    captures.keep('a', capture('0000000a'));
    captures.keep('b', capture('0000000b'));
    captures.keep('a', capture('0000000c'));
    captures.keep('c', capture('0000000d'));
    expect(captures.latest('b', false)).toBeUndefined();
    expect(captures.latest('a', false)?.token).toBe('0000000c');
    expect(captures.latest('c', false)?.token).toBe('0000000d');
  });

  it('gives the latest capture rendered the same way (with or without bounds)', () => {
    const captures = new UiTreeCaptures();
    captures.keep('d', capture('0000000a', false));
    captures.keep('d', capture('0000000b', true));
    expect(captures.latest('d', false)?.token).toBe('0000000a');
    expect(captures.latest('d', true)?.token).toBe('0000000b');
  });
});
