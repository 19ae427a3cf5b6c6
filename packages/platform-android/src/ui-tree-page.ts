import { countTokens } from './token-count.js';
import type { UiTreeLine } from './ui-tree-text.js';

/** Options for {@link pageUiTree}. */
export interface PageUiTreeOptions {
  /** Budget of the page in real (o200k) tokens, marker and ref list included. */
  readonly maxTokens: number;
  /** Index of the first line to show (the `cursor` of an earlier page's marker). Default 0. */
  readonly cursor?: number;
  /** The call that shows the page starting at a line, for the marker. Default `ui_dump {"cursor": N}`. */
  readonly continueWith?: (cursor: number) => string;
}

/** One page of a rendered tree. */
export interface UiTreePage {
  /** The text of the page: tree lines, then the list of refs cut and the marker when cut. */
  readonly text: string;
  /** The tree lines of the page alone (the screen's content). */
  readonly tree: string;
  /** What follows the tree lines: the list of refs cut and the marker (the tool's own lines). */
  readonly trailer: readonly string[];
  /** Lines of the whole tree. */
  readonly totalLines: number;
  /** Tree lines this page shows, from the cursor on. */
  readonly shownLines: number;
  /** Where the next page starts, when the budget cut the tree. */
  readonly nextCursor?: number;
  /** Actionable nodes in the part cut, and how many of them the ref list names. */
  readonly cutActionable: number;
  readonly listedActionable: number;
}

/** Share of the budget for the tree lines when the tree is cut; the rest lists refs and the marker. */
const TREE_SHARE = 0.7;
/** Tokens kept free for the marker line (a real one counts 60 to 75). */
const MARKER_RESERVE = 90;
/** Tokens kept free for the line that introduces the list of refs cut. */
const LIST_HEADER = 16;

/**
 * Cuts a rendered tree to a budget in real tokens (each line counted once, with its line break).
 * A tree that fits is returned whole. Otherwise the page
 * ends at a line boundary within 70% of the budget; the actionable nodes of the part cut are then
 * listed (`[ref] Class "label"`, or bare refs when the labels do not fit) so none is lost, and a
 * marker states what was cut and the cursor that continues. Lines keep their indentation, so pages
 * joined give the whole tree.
 */
export function pageUiTree(lines: readonly UiTreeLine[], options: PageUiTreeOptions): UiTreePage {
  const total = lines.length;
  const start = Math.min(Math.max(0, options.cursor ?? 0), total);
  const budget = Math.max(100, options.maxTokens);
  const continueWith = options.continueWith ?? ((cursor) => `ui_dump {"cursor": ${cursor}}`);
  const costs = new Map<UiTreeLine, number>();
  // Each line is counted once however often the budget looks at it; the break costs a token at most.
  const cost = (line: UiTreeLine) => {
    let tokens = costs.get(line);
    if (tokens === undefined) {
      tokens = countTokens(line.text) + 1;
      costs.set(line, tokens);
    }
    return tokens;
  };
  const rest = lines.slice(start);
  const restCost = rest.reduce((sum, line) => sum + cost(line), 0);
  const continued =
    start > 0 ? `[lines ${start + 1}-${total} of ${total}; the end of the screen]` : undefined;
  if (restCost + (continued ? countTokens(continued) + 1 : 0) <= budget) {
    const tree = rest.map((line) => line.text).join('\n');
    const trailer = continued ? [continued] : [];
    return {
      text: [tree, ...trailer].join('\n'),
      tree,
      trailer,
      totalLines: total,
      shownLines: rest.length,
      cutActionable: 0,
      listedActionable: 0,
    };
  }
  // The marker must fit beside the lines, also on a small budget.
  const treeBudget = Math.max(
    0,
    Math.min(Math.floor(budget * TREE_SHARE), budget - MARKER_RESERVE),
  );
  const out: string[] = [];
  const trailer: string[] = [];
  let used = 0;
  let index = start;
  for (; index < total; index++) {
    const line = lines[index] as UiTreeLine;
    if (used + cost(line) > treeBudget && index > start) break;
    out.push(line.text);
    used += cost(line);
  }
  const cut = lines.slice(index);
  const cutActionable = cut.filter((line) => line.actionable);
  const room = budget - used - MARKER_RESERVE;
  const listed = listRefs(cutActionable, room - LIST_HEADER);
  if (listed.lines.length > 0) {
    trailer.push(
      `[actionable nodes further down, ${listed.count} of ${cutActionable.length}:]`,
      ...listed.lines,
    );
  }
  const cutTokens = cut.reduce((sum, line) => sum + cost(line), 0);
  trailer.push(
    `[cut: lines ${start + 1}-${index} of ${total} shown; ${cut.length} more lines with ${cutActionable.length} actionable nodes (${cutTokens.toLocaleString('en-US')} tokens) not shown. Continue with ${continueWith(index)}]`,
  );
  return {
    text: [...out, ...trailer].join('\n'),
    tree: out.join('\n'),
    trailer,
    totalLines: total,
    shownLines: index - start,
    nextCursor: index,
    cutActionable: cutActionable.length,
    listedActionable: listed.count,
  };
}

/**
 * Lists actionable lines within `room` tokens: one `[ref] Class "label"` per line when all fit,
 * else bare refs packed on lines of about 100 characters, as many as fit (a ref and its space
 * cost at most three tokens).
 */
function listRefs(
  actionable: readonly UiTreeLine[],
  room: number,
): { lines: string[]; count: number } {
  const labelled = actionable.map((line) => line.compact);
  let labelledCost = 0;
  for (const line of labelled) {
    labelledCost += countTokens(line) + 1;
    if (labelledCost > room) break;
  }
  if (labelledCost <= room) {
    return { lines: labelled, count: labelled.length };
  }
  const lines: string[] = [];
  let current = '';
  let used = 0;
  let count = 0;
  for (const line of actionable) {
    const added = 3;
    if (used + added > room) break;
    if (current.length + added > 100) {
      lines.push(current);
      current = '';
    }
    current = current === '' ? line.ref : `${current} ${line.ref}`;
    used += added;
    count++;
  }
  if (current !== '') lines.push(current);
  return { lines, count };
}
