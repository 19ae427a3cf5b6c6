/** Options for {@link decidePageResume}: the two captures a cursor joins, and how to read a line. */
export interface PageResumeOptions<Line> {
  /** The cursor given: the first line of the page asked for, 0-based. */
  readonly cursor: number;
  /**
   * Token of the capture the cursor came from: the one given with the cursor, else the kept
   * capture's.
   */
  readonly token: string;
  /** Lines of the capture the cursor came from, when still kept; without them only tokens count. */
  readonly kept?: readonly Line[];
  /** Token of the capture as read now. */
  readonly currentToken: string;
  /** Lines of the capture as read now. */
  readonly current: readonly Line[];
  /**
   * The node a line describes (a ref, a role and ref): lines of equal identity at the same index
   * describe the same node, maybe with a new text.
   */
  readonly identityOf: (line: Line) => string;
  /**
   * Depth of a line in its tree, where the captures are trees: a line whose depth changed counts
   * as moved, like one whose identity changed. Default: depth is not compared.
   */
  readonly depthOf?: (line: Line) => number;
  /** The text of a line as compared: equal identity with another text is a change in place. */
  readonly textOf: (line: Line) => string;
  /**
   * A changed line as listed for the model (such as `line 3: Wi-Fi on`), given the line as read
   * now and its 0-based index; {@link PageResumeOptions.maxChangedChars} counts these.
   */
  readonly listChanged: (line: Line, index: number) => string;
  /** Most lines already shown that may have changed in place and still be listed. Default 10. */
  readonly maxChangedLines?: number;
  /**
   * Most characters the listed lines may take, each counted with one line break. Default 800.
   */
  readonly maxChangedChars?: number;
  /**
   * Whether the capture read now must have a line at the cursor: when true, one that ends at or
   * before the cursor starts from the top instead of giving an empty page. Default false: it only
   * has to hold the lines already shown.
   */
  readonly requireLineAtCursor?: boolean;
}

/** Why {@link decidePageResume} starts the page at the top. */
export type PageFromTopReason =
  /** The tokens differ and the capture the cursor came from is no longer kept to compare with. */
  | 'not-kept'
  /** The capture read now is shorter than the lines already shown (or, if required, the cursor). */
  | 'current-too-short'
  /** A line already shown now describes another node, or sits at another depth. */
  | 'shown-lines-moved'
  /** More lines already shown changed in place than may be listed, by count or by characters. */
  | 'too-many-changes';

/** What {@link decidePageResume} decided: whether the page continues at the cursor, and why. */
export type PageResume =
  | {
      /** The tokens are equal: the page continues the capture the cursor came from. */
      readonly kind: 'same-capture';
      /** Whether that capture is still kept; when false only the tokens were compared. */
      readonly isKept: boolean;
    }
  | {
      /** The capture changed, but not in the lines already shown: the page continues it. */
      readonly kind: 'changed-after-cursor';
      /** How many lines were already shown and are unchanged: the cursor, at most the kept length. */
      readonly shown: number;
    }
  | {
      /** A few lines already shown changed in place: they are listed, then the page continues. */
      readonly kind: 'changed-lines-listed';
      /** How many lines were already shown: the cursor, at most the kept length. */
      readonly shown: number;
      /** 0-based indexes of the lines already shown whose text changed, in order. */
      readonly changed: readonly number[];
      /** Those lines as read now, one entry each, by {@link PageResumeOptions.listChanged}. */
      readonly listed: readonly string[];
    }
  | {
      /** The lines already shown no longer hold, or cannot be checked: start at the top. */
      readonly kind: 'from-top';
      /** What made the page start at the top. */
      readonly reason: PageFromTopReason;
    };

/**
 * Decides whether a page asked for by a cursor can continue the pages read before, by comparing
 * the capture the cursor came from with the capture read now, so pages joined never mix two
 * captures unknowingly. Equal tokens continue; a capture no longer kept leaves only the tokens to
 * decide, and a different token then starts from the top. Otherwise the lines already shown (up to
 * the cursor) are compared by identity (and depth): all equal continues the new capture; up to
 * `maxChangedLines` lines with a new text, within `maxChangedChars`, are listed and continue; a
 * moved line, a capture shorter than the lines shown, or more changes start from the top.
 */
export function decidePageResume<Line>(options: PageResumeOptions<Line>): PageResume {
  const { cursor, kept, current, identityOf, depthOf, textOf } = options;
  if (options.token === options.currentToken) {
    return { kind: 'same-capture', isKept: kept !== undefined };
  }
  if (kept === undefined) return { kind: 'from-top', reason: 'not-kept' };
  const shown = Math.min(cursor, kept.length);
  if (current.length < shown || (options.requireLineAtCursor && current.length <= cursor)) {
    return { kind: 'from-top', reason: 'current-too-short' };
  }
  const changed: number[] = [];
  for (let index = 0; index < shown; index += 1) {
    const before = kept[index] as Line;
    const after = current[index] as Line;
    if (identityOf(before) !== identityOf(after)) {
      return { kind: 'from-top', reason: 'shown-lines-moved' };
    }
    if (depthOf !== undefined && depthOf(before) !== depthOf(after)) {
      return { kind: 'from-top', reason: 'shown-lines-moved' };
    }
    if (textOf(before) !== textOf(after)) changed.push(index);
  }
  if (changed.length === 0) return { kind: 'changed-after-cursor', shown };
  const listed = changed.map((index) => options.listChanged(current[index] as Line, index));
  const listedChars = listed.reduce((sum, line) => sum + line.length + 1, 0);
  if (
    changed.length > (options.maxChangedLines ?? 10) ||
    listedChars > (options.maxChangedChars ?? 800)
  ) {
    return { kind: 'from-top', reason: 'too-many-changes' };
  }
  return { kind: 'changed-lines-listed', shown, changed, listed };
}
