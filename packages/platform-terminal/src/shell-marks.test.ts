import { describe, expect, it } from 'vitest';
import { type MarkedPiece, MarkFilter, renderMark } from './shell-marks.js';

function run(chunks: string[]): { text: string; marks: MarkedPiece[] } {
  const filter = new MarkFilter();
  const pieces = chunks.flatMap((chunk) => filter.push(Buffer.from(chunk, 'latin1')));
  pieces.push({ kind: 'data', data: filter.flush() });
  return {
    text: pieces
      .map((piece) => (piece.kind === 'data' ? piece.data.toString('latin1') : ''))
      .join(''),
    marks: pieces.filter((piece) => piece.kind === 'mark'),
  };
}

describe('MarkFilter', () => {
  it('removes prompt and start marks and reports them in order', () => {
    const stream = `a${renderMark({ kind: 'start' })}out\r\n${renderMark({ kind: 'prompt', exitCode: 3 })}$ `;
    const { text, marks } = run([stream]);
    expect(text).toBe('aout\r\n$ ');
    expect(marks).toEqual([
      { kind: 'mark', mark: { kind: 'start' } },
      { kind: 'mark', mark: { kind: 'prompt', exitCode: 3 } },
    ]);
  });

  it('finds a mark split at every possible byte', () => {
    const stream = `xx${renderMark({ kind: 'prompt', exitCode: 127 })}yy`;
    for (let cut = 0; cut <= stream.length; cut += 1) {
      const { text, marks } = run([stream.slice(0, cut), stream.slice(cut)]);
      expect(text).toBe('xxyy');
      expect(marks).toHaveLength(1);
    }
  });

  it('passes other OSC sequences and unterminated lookalikes through as data', () => {
    const title = '\u001b]0;my title\u0007';
    expect(run([`${title}ok`]).text).toBe(`${title}ok`);
    const bogus = `\u001b]6973;${'z'.repeat(100)}`;
    expect(run([bogus, 'tail']).text).toBe(`${bogus}tail`);
    expect(run(['\u001b]6973;Q\u0007']).text).toBe('\u001b]6973;Q\u0007');
  });
});
