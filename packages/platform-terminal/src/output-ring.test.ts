import { describe, expect, it } from 'vitest';
import { OutputRing } from './output-ring.js';

describe('OutputRing', () => {
  it('reads back what was written, by cursor, without repeating', () => {
    const ring = new OutputRing(16);
    ring.append(Buffer.from('hello '));
    const first = ring.read(0);
    expect(first.data.toString()).toBe('hello ');
    ring.append(Buffer.from('world'));
    const second = ring.read(first.next);
    expect(second.data.toString()).toBe('world');
    expect(second.dropped).toBe(0);
    expect(ring.read(second.next).data.length).toBe(0);
  });

  it('reports exactly the bytes dropped when the ring wrapped', () => {
    const ring = new OutputRing(8);
    ring.append(Buffer.from('0123456789abcdef'));
    const read = ring.read(0);
    expect(read.dropped).toBe(8);
    expect(read.from).toBe(8);
    expect(read.data.toString()).toBe('89abcdef');
    expect(read.next).toBe(16);
  });

  it('never skips a byte across many wrapping appends and partial reads', () => {
    const ring = new OutputRing(13);
    let expected = '';
    let got = '';
    let dropped = 0;
    let cursor = 0;
    for (let index = 0; index < 500; index += 1) {
      const text = `<${index}>`;
      expected += text;
      ring.append(Buffer.from(text));
      if (index % 3 === 0) {
        const read = ring.read(cursor, 7);
        dropped += read.dropped;
        got += read.data.toString();
        cursor = read.next;
      }
    }
    const last = ring.read(cursor);
    dropped += last.dropped;
    got += last.data.toString();
    expect(got.length + dropped).toBe(expected.length);
    expect(expected.endsWith(got.slice(-13))).toBe(true);
  });

  it('says how much a bounded read left pending', () => {
    const ring = new OutputRing(32);
    ring.append(Buffer.from('abcdefghij'));
    const read = ring.read(2, 3);
    expect(read.data.toString()).toBe('cde');
    expect(read.pending).toBe(5);
  });

  it('keeps the tail of a chunk larger than the ring', () => {
    const ring = new OutputRing(4);
    ring.append(Buffer.from('ab'));
    ring.append(Buffer.from('cdefgh'));
    expect(ring.read(0).data.toString()).toBe('efgh');
    expect(ring.end).toBe(8);
  });

  it('rejects a negative cursor and a bad capacity', () => {
    expect(() => new OutputRing(0)).toThrow(RangeError);
    expect(() => new OutputRing(4).read(-1)).toThrow(RangeError);
  });
});
