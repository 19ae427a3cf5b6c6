import { describe, expect, it } from 'vitest';
import { decidePageResume, type PageResumeOptions } from './page-resume.js';

interface Row {
  readonly id: string;
  readonly depth: number;
  readonly text: string;
}

/** Rows `r0`, `r1`, … at depth 0 reading `row N`; `edits` replaces some by index. */
function rows(count: number, edits: Record<number, Partial<Row>> = {}): Row[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `r${index}`,
    depth: 0,
    text: `row ${index}`,
    ...edits[index],
  }));
}

/** The options of a cursor at 5 from capture `old` (kept, 10 rows) to capture `new`. */
function options(
  overrides: Partial<PageResumeOptions<Row>> & { current: readonly Row[] },
): PageResumeOptions<Row> {
  return {
    cursor: 5,
    token: 'old',
    kept: rows(10),
    currentToken: 'new',
    identityOf: (row) => row.id,
    textOf: (row) => row.text,
    listChanged: (row, index) => `#${index}: ${row.text}`,
    ...overrides,
  };
}

describe('decidePageResume', () => {
  it('continues the kept capture when the tokens are equal', () => {
    expect(decidePageResume(options({ current: rows(10), currentToken: 'old' }))).toEqual({
      kind: 'same-capture',
      isKept: true,
    });
  });

  it('lets equal tokens decide alone when the capture is no longer kept', () => {
    const resume = decidePageResume(
      options({ current: rows(3, { 0: { id: 'other' } }), currentToken: 'old', kept: undefined }),
    );
    expect(resume).toEqual({ kind: 'same-capture', isKept: false });
  });

  it('starts from the top when the tokens differ and the capture is no longer kept', () => {
    expect(decidePageResume(options({ current: rows(10), kept: undefined }))).toEqual({
      kind: 'from-top',
      reason: 'not-kept',
    });
  });

  it('continues when only lines at or after the cursor changed', () => {
    const current = rows(12, { 5: { text: 'new at the cursor' }, 9: { id: 'moved' } });
    expect(decidePageResume(options({ current }))).toEqual({
      kind: 'changed-after-cursor',
      shown: 5,
    });
  });

  it('counts as shown no more lines than the kept capture has', () => {
    expect(decidePageResume(options({ current: rows(12), cursor: 40 }))).toEqual({
      kind: 'changed-after-cursor',
      shown: 10,
    });
  });

  it('lists lines already shown whose text changed in place, as they read now', () => {
    const current = rows(10, { 1: { text: 'one, edited' }, 4: { text: 'four, edited' } });
    expect(decidePageResume(options({ current }))).toEqual({
      kind: 'changed-lines-listed',
      shown: 5,
      changed: [1, 4],
      listed: ['#1: one, edited', '#4: four, edited'],
    });
  });

  it('starts from the top when a line already shown describes another node', () => {
    const current = rows(10, { 3: { id: 'inserted' } });
    expect(decidePageResume(options({ current }))).toEqual({
      kind: 'from-top',
      reason: 'shown-lines-moved',
    });
  });

  it('starts from the top on a moved line even after lines that changed in place', () => {
    const current = rows(10, { 0: { text: 'edited' }, 4: { id: 'inserted' } });
    expect(decidePageResume(options({ current }))).toMatchObject({
      kind: 'from-top',
      reason: 'shown-lines-moved',
    });
  });

  it('compares depth only when told how to read it', () => {
    const current = rows(10, { 2: { depth: 1 } });
    expect(decidePageResume(options({ current }))).toEqual({
      kind: 'changed-after-cursor',
      shown: 5,
    });
    expect(decidePageResume(options({ current, depthOf: (row) => row.depth }))).toEqual({
      kind: 'from-top',
      reason: 'shown-lines-moved',
    });
  });

  it('starts from the top when the capture read now is shorter than the lines shown', () => {
    expect(decidePageResume(options({ current: rows(4) }))).toEqual({
      kind: 'from-top',
      reason: 'current-too-short',
    });
  });

  it('continues a capture that ends at the cursor unless a line at the cursor is required', () => {
    expect(decidePageResume(options({ current: rows(5) }))).toEqual({
      kind: 'changed-after-cursor',
      shown: 5,
    });
    expect(decidePageResume(options({ current: rows(5), requireLineAtCursor: true }))).toEqual({
      kind: 'from-top',
      reason: 'current-too-short',
    });
    expect(decidePageResume(options({ current: rows(6), requireLineAtCursor: true }))).toEqual({
      kind: 'changed-after-cursor',
      shown: 5,
    });
  });

  it('lists up to maxChangedLines changed lines and starts from the top past it', () => {
    const current = rows(10, { 0: { text: 'a' }, 1: { text: 'b' }, 2: { text: 'c' } });
    expect(decidePageResume(options({ current, maxChangedLines: 3 }))).toMatchObject({
      kind: 'changed-lines-listed',
      changed: [0, 1, 2],
    });
    expect(decidePageResume(options({ current, maxChangedLines: 2 }))).toEqual({
      kind: 'from-top',
      reason: 'too-many-changes',
    });
  });

  it('lists 10 changed lines by default, not 11', () => {
    const edits = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, index) => [index, { text: 'x' }]));
    const kept = rows(20);
    expect(
      decidePageResume(options({ current: rows(20, edits(10)), kept, cursor: 15 })),
    ).toMatchObject({ kind: 'changed-lines-listed', shown: 15 });
    expect(decidePageResume(options({ current: rows(20, edits(11)), kept, cursor: 15 }))).toEqual({
      kind: 'from-top',
      reason: 'too-many-changes',
    });
  });

  it('counts each listed line with one line break against maxChangedChars', () => {
    // '#0: ab' and '#1: cd' are 6 characters each: 14 with their line breaks.
    const current = rows(10, { 0: { text: 'ab' }, 1: { text: 'cd' } });
    expect(decidePageResume(options({ current, maxChangedChars: 14 }))).toMatchObject({
      kind: 'changed-lines-listed',
      listed: ['#0: ab', '#1: cd'],
    });
    expect(decidePageResume(options({ current, maxChangedChars: 13 }))).toEqual({
      kind: 'from-top',
      reason: 'too-many-changes',
    });
  });

  it('lists up to 800 characters by default', () => {
    // One listed line of `#0: ` and 795 characters takes 799 + 1 with its line break.
    const fits = rows(10, { 0: { text: 'x'.repeat(795) } });
    expect(decidePageResume(options({ current: fits }))).toMatchObject({
      kind: 'changed-lines-listed',
    });
    const over = rows(10, { 0: { text: 'x'.repeat(796) } });
    expect(decidePageResume(options({ current: over }))).toEqual({
      kind: 'from-top',
      reason: 'too-many-changes',
    });
  });
});
