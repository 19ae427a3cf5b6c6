import { decidePageResume } from '@toolsys/core-tool-registry/text';
import { lineText, type SnapshotList } from './snapshot-render.js';

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
 * again at the top of the current page. The comparison is `decidePageResume`'s; the wording the
 * model reads is browser_snapshot's.
 */
export function resumeSnapshotPage(options: ResumeSnapshotPageOptions): SnapshotResume {
  const { current, cursor, kept } = options;
  const now = current.token;
  const expected = options.page ?? kept?.token;
  if (expected === undefined) {
    return {
      kind: 'unchecked',
      cursor,
      list: current,
      note: '[no page was given with the cursor and no cut page of this tab is kept, so this page is cut from the page as read now, unchecked; the page of the cut marker lets browser_snapshot check it.]',
    };
  }
  const resume = decidePageResume({
    cursor,
    token: expected,
    kept: kept?.lines,
    currentToken: now,
    current: current.lines,
    identityOf: (line) => line.identity,
    depthOf: (line) => line.depth,
    textOf: (line) => line.line,
    listChanged: (line, index) => `node ${index + 1}: ${lineText(line).trim()}`,
    maxChangedLines: options.maxChangedLines,
    maxChangedChars: options.maxChangedChars,
  });
  switch (resume.kind) {
    case 'same-capture':
      return kept
        ? { kind: 'same-page', cursor, list: kept }
        : {
            kind: 'same-page',
            cursor,
            list: current,
            note: `[page ${now}: the tree of that page ${NOT_KEPT}; the page was read again and is unchanged, so this page continues it.]`,
          };
    case 'changed-after-cursor':
      return {
        kind: 'changed-after-cursor',
        cursor,
        list: current,
        note: `[the page changed since that page (page ${expected} → ${now}), but not in nodes 1-${resume.shown} already shown: this page continues the current page.]`,
      };
    case 'changed-lines-listed':
      return {
        kind: 'changed-lines-listed',
        cursor,
        list: current,
        note: [
          `[the page changed since that page (page ${expected} → ${now}): ${resume.changed.length} of nodes 1-${resume.shown} already shown now read as below, the others are unchanged; this page continues the current page.]`,
          ...resume.listed,
        ].join('\n'),
      };
    case 'from-top':
      return {
        kind: 'from-top',
        cursor: 0,
        list: current,
        note:
          resume.reason === 'not-kept'
            ? `[page ${expected} ${NOT_KEPT} and the page differs from it now (page ${now}), so the pages read so far may be out of date: this is the current page from the top.]`
            : `[the page changed since that page (page ${expected} → ${now}) in nodes already shown, so the pages read so far are out of date: this is the current page from the top.]`,
      };
  }
}
