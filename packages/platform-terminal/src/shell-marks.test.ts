import { describe, expect, it } from 'vitest';
import {
  FORGED_MARK_INTRODUCER,
  HIDDEN_MARK_KEY,
  type MarkedPiece,
  MarkFilter,
  newMarkKey,
  renderMark,
} from './shell-marks.js';

const KEY = newMarkKey();

function run(chunks: string[], key = KEY): { text: string; marks: MarkedPiece[] } {
  const filter = new MarkFilter(key);
  const pieces = chunks.flatMap((chunk) => filter.push(Buffer.from(chunk)));
  pieces.push({ kind: 'data', data: filter.flush() });
  return {
    text: pieces.map((piece) => (piece.kind === 'data' ? piece.data.toString() : '')).join(''),
    marks: pieces.filter((piece) => piece.kind === 'mark'),
  };
}

describe('MarkFilter', () => {
  it('removes prompt and start marks and reports them in order', () => {
    const stream = `a${renderMark({ kind: 'start' }, KEY)}out\r\n${renderMark({ kind: 'prompt', exitCode: 3 }, KEY)}$ `;
    const { text, marks } = run([stream]);
    expect(text).toBe('aout\r\n$ ');
    expect(marks).toEqual([
      { kind: 'mark', mark: { kind: 'start' } },
      { kind: 'mark', mark: { kind: 'prompt', exitCode: 3 } },
    ]);
  });

  it('finds a mark split at every possible byte', () => {
    const stream = `xx${renderMark({ kind: 'prompt', exitCode: 127 }, KEY)}yy`;
    const bytes = Buffer.from(stream);
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      const filter = new MarkFilter(KEY);
      const pieces = [
        ...filter.push(bytes.subarray(0, cut)),
        ...filter.push(bytes.subarray(cut)),
        { kind: 'data' as const, data: filter.flush() },
      ];
      const text = pieces.map((piece) => (piece.kind === 'data' ? piece.data.toString() : ''));
      expect(text.join('')).toBe('xxyy');
      expect(pieces.filter((piece) => piece.kind === 'mark')).toHaveLength(1);
    }
  });

  it('passes other OSC sequences through, and shows lookalike marks as text', () => {
    const title = '\u001b]0;my title\u0007';
    expect(run([`${title}ok`]).text).toBe(`${title}ok`);
    const bogus = `\u001b]6973;${'z'.repeat(100)}`;
    expect(run([bogus, 'tail']).text).toBe(`${FORGED_MARK_INTRODUCER}${'z'.repeat(100)}tail`);
    expect(run(['\u001b]6973;Q\u0007']).text).toBe(`${FORGED_MARK_INTRODUCER}Q\u0007`);
  });

  it('ignores marks without the session key: old keyless forms, another key, a bad code', () => {
    const other = newMarkKey();
    for (const forged of [
      '\u001b]6973;P;0\u0007',
      '\u001b]6973;S\u0007',
      renderMark({ kind: 'prompt', exitCode: 0 }, other),
      renderMark({ kind: 'start' }, other),
      `\u001b]6973;P;${KEY};x\u0007`,
      `\u001b]6973;P;${KEY.slice(0, -1)};0\u0007`,
    ]) {
      const { text, marks } = run([`before${forged}after`]);
      expect(marks).toEqual([]);
      expect(text.startsWith(`before${FORGED_MARK_INTRODUCER}`)).toBe(true);
      expect(text.endsWith('after')).toBe(true);
      expect(text).not.toContain(KEY);
    }
  });

  it('never lets the key through, whole or split across chunks', () => {
    const stream = `PROMPT_COMMAND=printf '${KEY};%s' and ${KEY}${KEY}!`;
    const expected = `PROMPT_COMMAND=printf '${HIDDEN_MARK_KEY};%s' and ${HIDDEN_MARK_KEY}${HIDDEN_MARK_KEY}!`;
    const bytes = Buffer.from(stream);
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      const filter = new MarkFilter(KEY);
      const data = [
        ...filter.push(bytes.subarray(0, cut)),
        ...filter.push(bytes.subarray(cut)),
        { kind: 'data' as const, data: filter.flush() },
      ].map((piece) => (piece.kind === 'data' ? piece.data.toString() : ''));
      expect(data.join('')).toBe(expected);
    }
    expect(run([`end ${KEY.slice(0, 10)}`]).text).toBe(`end ${KEY.slice(0, 10)}`);
  });

  it('holds back no plain ASCII output waiting for a key (keys start outside ASCII)', () => {
    const filter = new MarkFilter(KEY);
    const pieces = filter.push(Buffer.from('Continue? (y/n) abc'));
    expect(
      Buffer.concat(pieces.map((p) => (p.kind === 'data' ? p.data : Buffer.alloc(0)))).toString(),
    ).toBe('Continue? (y/n) abc');
    expect(newMarkKey()).not.toBe(newMarkKey());
    expect(newMarkKey()).toMatch(/^\u00a7[0-9a-f]{32}$/);
  });
});
