import { decidePageResume } from '@toolsys/core-tool-registry/text';
import { screenTokenOf, type UiTreeCapture } from './ui-tree-captures.js';
import type { UiTreeLine } from './ui-tree-text.js';

/** Options for {@link resumeUiTreePage}. */
export interface ResumeUiTreePageOptions {
  /** The lines of the screen as read now. */
  readonly current: readonly UiTreeLine[];
  /** The cursor given: the first line of the page asked for, 0-based. */
  readonly cursor: number;
  /** The screen token given with the cursor (the cut marker's `"screen"`), if any. */
  readonly screen?: string;
  /**
   * The capture the cursor came from, if still kept: the one whose token was given, or without a
   * token the device's latest.
   */
  readonly kept?: UiTreeCapture;
  /** Most lines already shown that may have changed and still be listed in the note. Default 10. */
  readonly maxChangedLines?: number;
  /** Most characters those listed lines may take. Default 800. */
  readonly maxChangedChars?: number;
}

/** How the page asked for by a cursor relates to the pages read before. */
export type UiTreeResumeKind =
  /** The screen is the one the cursor came from: the page continues it. */
  | 'same-screen'
  /** The screen changed, but not in the lines already shown: the page continues the new screen. */
  | 'changed-after-cursor'
  /** A few lines already shown changed (same nodes): the note lists them as they read now. */
  | 'changed-lines-listed'
  /** The lines already shown no longer hold, or cannot be checked: the page starts at the top. */
  | 'from-top'
  /** No screen token and no capture to compare with: the page is cut from the screen as it is. */
  | 'unchecked';

/** What {@link resumeUiTreePage} decided. */
export type UiTreeResume =
  | {
      readonly kind: UiTreeResumeKind;
      /** The token of the screen as read now. */
      readonly screen: string;
      /** The first line of the page to show (0 when the page starts at the top). */
      readonly cursor: number;
      /** What the model must know before reading the page, when anything. */
      readonly note?: string;
    }
  | {
      readonly kind: 'refused';
      /** Why the cursor cannot be used. */
      readonly message: string;
    };

const NOT_KEPT = 'is no longer kept (the tools restarted, or many dumps since)';

/**
 * Decides where the page asked for by a cursor starts, so pages joined never mix two screens
 * unknowingly. The screen read now is compared with the capture the cursor came from (else with
 * the screen token alone): the same screen continues at the cursor; a change only past the lines
 * already shown continues the new screen; a few lines already shown that changed in place are
 * listed as they read now, then the new screen continues; any other change starts again at the
 * top. A cursor past the end of its screen is refused. The comparison is `decidePageResume`'s;
 * the refusals and the wording the model reads are ui_dump's.
 */
export function resumeUiTreePage(options: ResumeUiTreePageOptions): UiTreeResume {
  const { current, cursor, kept } = options;
  const now = screenTokenOf(current);
  const expected = options.screen ?? kept?.token;
  const reference = kept?.lines ?? (expected === now ? current : undefined);
  if (
    expected === undefined ||
    (options.screen === undefined && kept !== undefined && cursor >= kept.lines.length)
  ) {
    if (cursor >= current.length) {
      return {
        kind: 'refused',
        message: `cursor ${cursor} is past the end: the screen has ${current.length} lines now.`,
      };
    }
    return {
      kind: 'unchecked',
      screen: now,
      cursor,
      note: '[no "screen" was given with the cursor and no cut page of this screen is kept, so this page is cut from the screen as read now, unchecked; the "screen" of the cut marker lets ui_dump check it.]',
    };
  }
  if (reference !== undefined && cursor >= reference.length) {
    return {
      kind: 'refused',
      message: `cursor ${cursor} is past the end: screen ${expected} has ${reference.length} lines.`,
    };
  }
  const resume = decidePageResume({
    cursor,
    token: expected,
    kept: kept?.lines,
    currentToken: now,
    current,
    identityOf: (line) => line.key,
    textOf: (line) => line.text,
    listChanged: (line, index) => `line ${index + 1}: ${line.text.trim()}`,
    maxChangedLines: options.maxChangedLines,
    maxChangedChars: options.maxChangedChars,
    // A screen that ends at the cursor would give an empty page: it starts from the top instead.
    requireLineAtCursor: true,
  });
  switch (resume.kind) {
    case 'same-capture':
      return resume.isKept
        ? { kind: 'same-screen', screen: now, cursor }
        : {
            kind: 'same-screen',
            screen: now,
            cursor,
            note: `[screen ${now}: the capture of that page ${NOT_KEPT}; the screen was read again and is unchanged, so this page continues it.]`,
          };
    case 'changed-after-cursor':
      return {
        kind: 'changed-after-cursor',
        screen: now,
        cursor,
        note: `[the screen changed since that page (screen ${expected} → ${now}), but not in lines 1-${cursor} already shown: this page continues the current screen.]`,
      };
    case 'changed-lines-listed':
      return {
        kind: 'changed-lines-listed',
        screen: now,
        cursor,
        note: [
          `[the screen changed since that page (screen ${expected} → ${now}): ${resume.changed.length} of lines 1-${cursor} already shown now read as below, the others are unchanged; this page continues the current screen.]`,
          ...resume.listed,
        ].join('\n'),
      };
    case 'from-top':
      return {
        kind: 'from-top',
        screen: now,
        cursor: 0,
        note:
          resume.reason === 'not-kept'
            ? `[screen ${expected} ${NOT_KEPT} and the screen differs from it now (screen ${now}), so the pages read so far may be out of date: this is the current screen from the top.]`
            : `[the screen changed since that page (screen ${expected} → ${now}) in lines already shown, so the pages read so far are out of date: this is the current screen from the top.]`,
      };
  }
}
