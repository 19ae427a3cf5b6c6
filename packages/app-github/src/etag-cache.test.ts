import { describe, expect, it } from 'vitest';
import { EtagCache } from './etag-cache.js';

const entry = (etag: string) => ({
  etag,
  response: { status: 200, url: 'u', headers: {}, data: etag },
});

describe('EtagCache', () => {
  it('evicts the least recently used entry past its capacity', () => {
    const cache = new EtagCache(2);
    cache.set('a', entry('1'));
    cache.set('b', entry('2'));
    expect(cache.get('a')?.etag).toBe('1');
    cache.set('c', entry('3'));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.etag).toBe('1');
    expect(cache.get('c')?.etag).toBe('3');
    expect(cache.size).toBe(2);
  });

  it('replaces an entry under the same key and clears', () => {
    const cache = new EtagCache();
    cache.set('a', entry('1'));
    cache.set('a', entry('2'));
    expect(cache.get('a')?.etag).toBe('2');
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
