import { describe, expect, it } from 'vitest';
import { RecentCaptures, type RecentCapturesOptions } from './recent-captures.js';

interface Capture {
  readonly token: string;
  readonly view: string;
  readonly lines: number;
}

function capture(token: string, lines = 10, view = 'whole'): Capture {
  return { token, view, lines };
}

function store(options: Partial<RecentCapturesOptions<Capture>> = {}): RecentCaptures<Capture> {
  return new RecentCaptures<Capture>({ tokenOf: (entry) => entry.token, ...options });
}

/** The tokens a key holds, newest first, as `latest` and `find` see them. */
function tokensOf(captures: RecentCaptures<Capture>, key: string, tokens: string[]): string[] {
  return tokens.filter((token) => captures.find(key, token) !== undefined);
}

describe('RecentCaptures', () => {
  it('finds a kept capture by key and token, and no other key has it', () => {
    const captures = store();
    const kept = capture('a');
    expect(captures.keep('k1', kept)).toBe(true);
    expect(captures.find('k1', 'a')).toBe(kept);
    expect(captures.find('k2', 'a')).toBeUndefined();
    expect(captures.find('k1', 'b')).toBeUndefined();
  });

  it('gives the newest capture of a key, or the newest that matches', () => {
    const captures = store();
    captures.keep('k', capture('a', 10, 'whole'));
    captures.keep('k', capture('b', 10, 'expanded'));
    expect(captures.latest('k')?.token).toBe('b');
    expect(captures.latest('k', (entry) => entry.view === 'whole')?.token).toBe('a');
    expect(captures.latest('k', (entry) => entry.view === 'find')).toBeUndefined();
    expect(captures.latest('other')).toBeUndefined();
  });

  it('keeps the newest captures of a key up to perKey, dropping the oldest', () => {
    const captures = store({ perKey: 2 });
    for (const token of ['a', 'b', 'c']) captures.keep('k', capture(token));
    expect(tokensOf(captures, 'k', ['a', 'b', 'c'])).toEqual(['b', 'c']);
    expect(captures.latest('k')?.token).toBe('c');
  });

  it('keeps 4 captures a key by default', () => {
    const captures = store();
    for (const token of ['a', 'b', 'c', 'd', 'e']) captures.keep('k', capture(token));
    expect(tokensOf(captures, 'k', ['a', 'b', 'c', 'd', 'e'])).toEqual(['b', 'c', 'd', 'e']);
  });

  it('makes a capture of a token kept again the newest instead of keeping it twice', () => {
    const captures = store({ perKey: 2 });
    captures.keep('k', capture('a'));
    captures.keep('k', capture('b'));
    const again = capture('a');
    captures.keep('k', again);
    captures.keep('k', capture('c'));
    expect(captures.find('k', 'a')).toBe(again);
    expect(captures.find('k', 'b')).toBeUndefined();
    expect(captures.size).toBe(2);
  });

  it('dedupes by identityOf when given: equal tokens of another identity are both kept', () => {
    const captures = store({ identityOf: (entry) => `${entry.view} ${entry.token}` });
    captures.keep('k', capture('a', 10, 'whole'));
    captures.keep('k', capture('a', 10, 'expanded'));
    captures.keep('k', capture('a', 10, 'whole'));
    expect(captures.size).toBe(2);
    expect(captures.latest('k')?.view).toBe('whole');
    expect(captures.latest('k', (entry) => entry.view === 'expanded')?.token).toBe('a');
  });

  it('drops the key used longest ago past the key bound, keeping is using', () => {
    const captures = store({ keys: 2 });
    captures.keep('a', capture('1'));
    captures.keep('b', capture('2'));
    captures.keep('a', capture('3'));
    captures.keep('c', capture('4'));
    expect(captures.latest('b')).toBeUndefined();
    expect(captures.latest('a')?.token).toBe('3');
    expect(captures.latest('c')?.token).toBe('4');
  });

  it('keeps 8 keys by default', () => {
    const captures = store();
    for (let key = 0; key < 9; key += 1) captures.keep(`k${key}`, capture('a'));
    expect(captures.latest('k0')).toBeUndefined();
    expect(captures.latest('k1')?.token).toBe('a');
    expect(captures.latest('k8')?.token).toBe('a');
  });

  it('counts each capture 1 towards the size without sizeOf', () => {
    const captures = store();
    captures.keep('a', capture('1', 50));
    captures.keep('b', capture('2', 50));
    expect(captures.size).toBe(2);
  });

  it('drops the oldest captures of the key used longest ago past maxSize', () => {
    const captures = store({ sizeOf: (entry) => entry.lines, maxSize: 100 });
    captures.keep('a', capture('1', 30));
    captures.keep('a', capture('2', 30));
    captures.keep('b', capture('3', 30));
    captures.keep('b', capture('4', 30));
    expect(tokensOf(captures, 'a', ['1', '2'])).toEqual(['2']);
    expect(captures.latest('b')?.token).toBe('4');
    expect(captures.size).toBe(90);
    captures.keep('b', capture('5', 50));
    expect(captures.latest('a')).toBeUndefined();
    expect(tokensOf(captures, 'b', ['3', '4', '5'])).toEqual(['4', '5']);
    expect(captures.size).toBe(80);
  });

  it('never drops the capture just kept to fit maxSize', () => {
    const captures = store({ sizeOf: (entry) => entry.lines, maxSize: 100 });
    captures.keep('a', capture('1', 40));
    captures.keep('a', capture('2', 90));
    expect(tokensOf(captures, 'a', ['1', '2'])).toEqual(['2']);
    expect(captures.size).toBe(90);
  });

  it('does not keep a capture larger than maxSize, and changes nothing', () => {
    const captures = store({ sizeOf: (entry) => entry.lines, maxSize: 100, keys: 2 });
    captures.keep('a', capture('1', 60));
    captures.keep('b', capture('2', 30));
    expect(captures.keep('a', capture('3', 101))).toBe(false);
    expect(captures.find('a', '3')).toBeUndefined();
    expect(captures.size).toBe(90);
    // Key a was not used by the refused capture, so it is still the one used longest ago.
    captures.keep('c', capture('4', 10));
    expect(captures.latest('a')).toBeUndefined();
    expect(captures.latest('b')?.token).toBe('2');
  });

  it('holds every bound to at least 1', () => {
    const captures = store({ perKey: 0, keys: 0, maxSize: 0, sizeOf: () => 1 });
    captures.keep('a', capture('1'));
    captures.keep('a', capture('2'));
    captures.keep('b', capture('3'));
    expect(captures.latest('a')).toBeUndefined();
    expect(captures.latest('b')?.token).toBe('3');
    expect(captures.size).toBe(1);
  });
});
