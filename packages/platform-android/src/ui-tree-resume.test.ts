import { describe, expect, it } from 'vitest';
import { screenTokenOf, type UiTreeCapture } from './ui-tree-captures.js';
import { resumeUiTreePage } from './ui-tree-resume.js';
import type { UiTreeLine } from './ui-tree-text.js';

/** A tree of `count` rows, each a checkbox line; `checked` lists the rows shown checked. */
function rows(count: number, checked: readonly number[] = [], from = 0): UiTreeLine[] {
  return Array.from({ length: count }, (_, index) => {
    const ref = `e${String(100000 + from + index)}`;
    const flag = checked.includes(from + index) ? 'checked' : 'unchecked';
    return {
      text: `  [${ref}] CheckBox "Row ${from + index + 1}" clickable ${flag}`,
      ref,
      key: ref,
      actionable: true,
      compact: `[${ref}] CheckBox "Row ${from + index + 1}"`,
    };
  });
}

function capture(lines: readonly UiTreeLine[]): UiTreeCapture {
  return { token: screenTokenOf(lines), bounds: false, lines };
}

describe('screenTokenOf', () => {
  it('is 8 hex digits, equal for equal lines and different when one line changes', () => {
    expect(screenTokenOf(rows(50))).toMatch(/^[0-9a-f]{8}$/);
    expect(screenTokenOf(rows(50))).toBe(screenTokenOf(rows(50)));
    expect(screenTokenOf(rows(50, [49]))).not.toBe(screenTokenOf(rows(50)));
  });
});

describe('resumeUiTreePage', () => {
  const before = rows(50);
  const kept = capture(before);

  it('continues at the cursor, without a note, when the screen is the kept capture', () => {
    expect(resumeUiTreePage({ current: rows(50), cursor: 20, screen: kept.token, kept })).toEqual({
      kind: 'same-screen',
      screen: kept.token,
      cursor: 20,
    });
  });

  it('continues an unchanged screen whose capture is gone, and says it read it again', () => {
    expect(resumeUiTreePage({ current: rows(50), cursor: 20, screen: kept.token })).toEqual({
      kind: 'same-screen',
      screen: kept.token,
      cursor: 20,
      note: `[screen ${kept.token}: the capture of that page is no longer kept (the tools restarted, or many dumps since); the screen was read again and is unchanged, so this page continues it.]`,
    });
  });

  it('continues the new screen when it changed only past the lines already shown', () => {
    const after = rows(50, [40]);
    const now = screenTokenOf(after);
    expect(resumeUiTreePage({ current: after, cursor: 20, screen: kept.token, kept })).toEqual({
      kind: 'changed-after-cursor',
      screen: now,
      cursor: 20,
      note: `[the screen changed since that page (screen ${kept.token} → ${now}), but not in lines 1-20 already shown: this page continues the current screen.]`,
    });
  });

  it('lists the lines already shown that changed in place, then continues the new screen', () => {
    const after = rows(50, [2, 7]);
    const now = screenTokenOf(after);
    expect(resumeUiTreePage({ current: after, cursor: 20, screen: kept.token, kept })).toEqual({
      kind: 'changed-lines-listed',
      screen: now,
      cursor: 20,
      note: [
        `[the screen changed since that page (screen ${kept.token} → ${now}): 2 of lines 1-20 already shown now read as below, the others are unchanged; this page continues the current screen.]`,
        `line 3: [e100002] CheckBox "Row 3" clickable checked`,
        `line 8: [e100007] CheckBox "Row 8" clickable checked`,
      ].join('\n'),
    });
  });

  it('starts at the top when more lines already shown changed than the note may list', () => {
    const after = rows(50, [0, 1, 2, 3]);
    const resume = resumeUiTreePage({
      current: after,
      cursor: 20,
      screen: kept.token,
      kept,
      maxChangedLines: 3,
    });
    expect(resume).toMatchObject({ kind: 'from-top', cursor: 0 });
  });

  it('starts at the top when the lines already shown moved (a list scrolled)', () => {
    const scrolled = rows(50, [], 5);
    const now = screenTokenOf(scrolled);
    expect(resumeUiTreePage({ current: scrolled, cursor: 20, screen: kept.token, kept })).toEqual({
      kind: 'from-top',
      screen: now,
      cursor: 0,
      note: `[the screen changed since that page (screen ${kept.token} → ${now}) in lines already shown, so the pages read so far are out of date: this is the current screen from the top.]`,
    });
  });

  it('starts at the top when the screen now ends within the lines already shown', () => {
    expect(
      resumeUiTreePage({ current: rows(20), cursor: 20, screen: kept.token, kept }),
    ).toMatchObject({ kind: 'from-top', cursor: 0 });
  });

  it('starts at the top when the capture is gone and the screen differs from its token', () => {
    const after = rows(50, [40]);
    const now = screenTokenOf(after);
    expect(resumeUiTreePage({ current: after, cursor: 20, screen: kept.token })).toEqual({
      kind: 'from-top',
      screen: now,
      cursor: 0,
      note: `[screen ${kept.token} is no longer kept (the tools restarted, or many dumps since) and the screen differs from it now (screen ${now}), so the pages read so far may be out of date: this is the current screen from the top.]`,
    });
  });

  it('checks a cursor given alone against the latest capture', () => {
    expect(resumeUiTreePage({ current: rows(50, [40]), cursor: 20, kept })).toMatchObject({
      kind: 'changed-after-cursor',
      cursor: 20,
    });
    expect(resumeUiTreePage({ current: rows(50, [3]), cursor: 20, kept })).toMatchObject({
      kind: 'changed-lines-listed',
      cursor: 20,
    });
  });

  it('cuts a cursor given alone, with nothing kept, from the screen as read now and says so', () => {
    const now = screenTokenOf(before);
    expect(resumeUiTreePage({ current: before, cursor: 20 })).toEqual({
      kind: 'unchecked',
      screen: now,
      cursor: 20,
      note: '[no "screen" was given with the cursor and no cut page of this screen is kept, so this page is cut from the screen as read now, unchecked; the "screen" of the cut marker lets ui_dump check it.]',
    });
  });

  it('refuses a cursor past the end of its screen', () => {
    expect(resumeUiTreePage({ current: before, cursor: 50 })).toEqual({
      kind: 'refused',
      message: 'cursor 50 is past the end: the screen has 50 lines now.',
    });
    expect(resumeUiTreePage({ current: rows(80), cursor: 60, screen: kept.token, kept })).toEqual({
      kind: 'refused',
      message: `cursor 60 is past the end: screen ${kept.token} has 50 lines.`,
    });
    expect(resumeUiTreePage({ current: before, cursor: 50, screen: kept.token })).toEqual({
      kind: 'refused',
      message: `cursor 50 is past the end: screen ${kept.token} has 50 lines.`,
    });
  });
});
