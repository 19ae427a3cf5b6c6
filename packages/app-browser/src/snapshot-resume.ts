import { lineText, type SnapshotLine, type SnapshotList } from './snapshot-render.js';

/** Options for {@link resumeSnapshotPage}. */
export interface ResumeSnapshotPageOptions {
  /** The list of the page as read now. */
  readonly current: SnapshotList;
  /** The cursor given: the first node of the page asked for, 0-based. */
  readonly cursor: number;
  /** The page token given with the cursor (`page` of the cut marker), if any. */
  readonly page?: string;
  /**
   * The list the cursor came from, if still kept: the one whose token was given, or without a
   * token the tab's latest.
   */
  readonly kept?: SnapshotList;
  /** Most nodes already shown that may have changed in place and still be listed. Default 10. */
  readonly maxChangedLines?: number;
  /** Most characters those listed nodes may take. Default 800. */
  readonly maxChangedChars?: number;
}

/** How the page asked for by a cursor relates to the pages read before. */
export type SnapshotResumeKind =
  /** The page reads as the one the cursor came from: this page continues it. */
  | 'same-page'
  /** The page changed, but not in the nodes already shown: this page continues the new one. */
  | 'changed-after-cursor'
  /** A few nodes already shown changed in place: the note lists them as they read now. */
  | 'changed-lines-listed'
  /** Nodes already shown moved, appeared or went, or cannot be checked: the page starts at the top. */
  | 'from-top'
  /** No page token and no kept list to compare with: the page is cut as read now. */
  | 'unchecked';

/** What {@link resumeSnapshotPage} decided. */
export interface SnapshotResume {
  readonly kind: SnapshotResumeKind;
  /** The first node of the page to show (0 when the page starts at the top). */
  readonly cursor: number;
  /** The list to show the page from: the kept one when the page is the same, else the current. */
  readonly list: SnapshotList;
  /** What the model must know before reading the page, when anything. */
  readonly note?: string;
}

const NOT_KEPT = 'is no longer kept (many snapshots since, or the tools restarted)';

/**
 * Decides where the page asked for by a cursor starts, so pages joined never mix two states of a
 * page unknowingly. The page read now is compared with the list the cursor came from (else with
 * the page token alone): the same page continues at the cursor from the kept list; a change only
 * past the nodes already shown continues the current page; a few nodes already shown that changed
 * in place are listed as they read now, then the current page continues; any other change starts
 * again at the top of the current page.
 */
export function resumeSnapshotPage(options: ResumeSnapshotPageOptions): SnapshotResume {
  const { current, cursor, kept } = options;
  const now = current.token;
  if (options.page === undefined && kept === undefined) {
    return {
      kind: 'unchecked',
      cursor,
      list: current,
      note: '[no page was given with the cursor and no cut page of this tab is kept, so this page is cut from the page as read now, unchecked; the page of the cut marker lets browser_snapshot check it.]',
    };
  }
  const expected = options.page ?? (kept as SnapshotList).token;
  if (expected === now) {
    return kept
      ? { kind: 'same-page', cursor, list: kept }
      : {
          kind: 'same-page',
          cursor,
          list: current,
          note: `[page ${now}: the tree of that page ${NOT_KEPT}; the page was read again and is unchanged, so this page continues it.]`,
        };
  }
  const fromTop = (note: string): SnapshotResume => ({
    kind: 'from-top',
    cursor: 0,
    list: current,
    note,
  });
  if (kept === undefined) {
    return fromTop(
      `[page ${expected} ${NOT_KEPT} and the page differs from it now (page ${now}), so the pages read so far may be out of date: this is the current page from the top.]`,
    );
  }
  const changedFromTop = fromTop(
    `[the page changed since that page (page ${expected} → ${now}) in nodes already shown, so the pages read so far are out of date: this is the current page from the top.]`,
  );
  const shown = Math.min(cursor, kept.lines.length);
  if (current.lines.length < shown) return changedFromTop;
  const changed: number[] = [];
  for (let index = 0; index < shown; index += 1) {
    const before = kept.lines[index] as SnapshotLine;
    const after = current.lines[index] as SnapshotLine;
    if (before.identity !== after.identity || before.depth !== after.depth) return changedFromTop;
    if (before.line !== after.line) changed.push(index);
  }
  if (changed.length === 0) {
    return {
      kind: 'changed-after-cursor',
      cursor,
      list: current,
      note: `[the page changed since that page (page ${expected} → ${now}), but not in nodes 1-${shown} already shown: this page continues the current page.]`,
    };
  }
  const listed = changed.map(
    (index) => `node ${index + 1}: ${lineText(current.lines[index] as SnapshotLine).trim()}`,
  );
  const listedChars = listed.reduce((sum, line) => sum + line.length + 1, 0);
  if (
    changed.length > (options.maxChangedLines ?? 10) ||
    listedChars > (options.maxChangedChars ?? 800)
  ) {
    return changedFromTop;
  }
  return {
    kind: 'changed-lines-listed',
    cursor,
    list: current,
    note: [
      `[the page changed since that page (page ${expected} → ${now}): ${changed.length} of nodes 1-${shown} already shown now read as below, the others are unchanged; this page continues the current page.]`,
      ...listed,
    ].join('\n'),
  };
}
