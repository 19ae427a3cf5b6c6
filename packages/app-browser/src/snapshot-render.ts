import { createHash } from 'node:crypto';
import type { AriaNode } from './aria-tree.js';
import { NO_PAUSE, Pace, runSteps, runStepsAsync, type Steps } from './pace.js';
import type { LineMatcher } from './page-text.js';
import type { ListedElement } from './snapshot-line-format.js';
import { flattenSteps, type SnapshotLine } from './snapshot-lines.js';
import { lineTokens, takeTokens } from './token-count.js';

export { formatNode, shorten } from './snapshot-line-format.js';
export type { SnapshotLine } from './snapshot-lines.js';

/** Options for {@link renderSnapshot}. */
export interface RenderSnapshotOptions {
  /**
   * Token budget of the rendered text, in real (o200k) tokens counted line by line as the page is
   * filled. `Infinity` renders every line without counting (the whole-page file).
   */
  maxTokens: number;
  /** Index of the first node to show (from the cut marker of an earlier page). Default 0. */
  cursor?: number;
  /** Show only the subtree of the node with this ref. */
  scopeRef?: string;
  /**
   * Show only nodes whose line (as shown, without indentation) matches, with their ancestors for
   * context. Build it with `compileFind`: patterns from a model run on the linear-time engine.
   */
  find?: LineMatcher;
  /**
   * Keep every repeated sibling. Default false: runs are collapsed when the whole tree does not
   * fit the budget.
   */
  expand?: boolean;
  /** How many siblings of a repeated run stay visible before the rest is collapsed. Default 3. */
  keepRepeated?: number;
  /** Names longer than this are shortened, their length stated. Default 160 characters. */
  maxTextLength?: number;
  /** Show link targets (relative to `pageUrl` when they share its origin). Default false. */
  urls?: boolean;
  /** Address of the page, to show link targets relative to it. */
  pageUrl?: string;
  /**
   * Whether repeated runs are collapsed, overriding the decision from the budget (a later page
   * follows the decision of the page its cursor came from). Ignored with `expand` or `find`.
   */
  collapse?: boolean;
}

/** A rendered snapshot page. */
export interface RenderedSnapshot {
  /** The text the model reads (no header): `body`, then the cut marker when there is one. */
  readonly text: string;
  /**
   * The page's lines without the cut marker: what results put between the web-page markers
   * (the cut marker, the tools' own, goes after them, where a page cannot forge it).
   */
  readonly body: string;
  /** The cut marker naming the next cursor and the page token, when the budget cut the list. */
  readonly cutMarker?: string;
  /** Nodes in the (scoped, filtered, collapsed) list. */
  readonly totalNodes: number;
  /** Nodes shown in document order. */
  readonly shownNodes: number;
  /** Where the next page starts, when the budget cut the list. */
  readonly nextCursor?: number;
  /**
   * Tokens of `text`, never below the real o200k count: counted line by line as the page was
   * filled, or, when everything fits without counting, the bound given by its UTF-8 length.
   */
  readonly tokens: number;
  /** Whether `scopeRef` named no node. */
  readonly scopeMissing?: boolean;
  /** The page token of the list the cursor counts in, see {@link pageTokenOf}. */
  readonly page: string;
  /** The list the page was cut from. */
  readonly list: SnapshotList;
}

/** The (scoped, filtered, collapsed) list of node lines a cursor counts in, with its token. */
export interface SnapshotList {
  readonly lines: readonly SnapshotLine[];
  /** Page token: a hash of the lines, see {@link pageTokenOf}. */
  readonly token: string;
  /** Whether repeated runs were collapsed. */
  readonly collapsed: boolean;
}

type Entry = SnapshotLine;

/** Finds the node with a ref in a forest. */
export function findByRef(nodes: readonly AriaNode[], ref: string): AriaNode | undefined {
  for (const node of nodes) {
    if (node.ref === ref) return node;
    const inner = findByRef(node.children, ref);
    if (inner) return inner;
  }
  return undefined;
}

/**
 * Renders an accessibility tree for a model within a token budget: inline content as prose lines,
 * and when the whole tree does not fit, repeated sibling runs collapsed (the first few kept, the
 * count stated); past the budget the list is cut at a line boundary with a marker and a cursor.
 * Interactive elements are never the first part dropped: once the document-order part is full,
 * the first page still lists the interactive elements of the cut part one per line while the
 * budget lasts.
 */
export function renderSnapshot(
  nodes: readonly AriaNode[],
  options: RenderSnapshotOptions,
): RenderedSnapshot {
  const list = listSnapshotLines(nodes, options);
  return list === undefined ? scopeMissing() : renderSnapshotList(list, options);
}

/** What a snapshot whose `scopeRef` names no node renders. */
function scopeMissing(): RenderedSnapshot {
  const empty = { lines: [], token: pageTokenOf([]), collapsed: false };
  return {
    text: '',
    body: '',
    totalNodes: 0,
    shownNodes: 0,
    tokens: 0,
    scopeMissing: true,
    page: empty.token,
    list: empty,
  };
}

/**
 * The list of lines a snapshot is paged through: scoped to `scopeRef`, filtered by `find`, and
 * with repeated runs collapsed when the whole tree does not fit the budget (or as `collapse`
 * says). Undefined when `scopeRef` names no node.
 */
export function listSnapshotLines(
  nodes: readonly AriaNode[],
  options: RenderSnapshotOptions,
): SnapshotList | undefined {
  return runSteps(listSnapshotSteps(nodes, NO_PAUSE, options));
}

/**
 * {@link listSnapshotLines} in slices that give the event loop a turn (a page of 200,000 nodes
 * holds no other session); stops with the signal's reason once it is aborted.
 */
export function listSnapshotLinesAsync(
  nodes: readonly AriaNode[],
  options: RenderSnapshotOptions,
  signal?: AbortSignal,
): Promise<SnapshotList | undefined> {
  const pace = new Pace();
  return runStepsAsync(listSnapshotSteps(nodes, pace, options), pace, signal);
}

/** {@link renderSnapshot} with its list made in slices, see {@link listSnapshotLinesAsync}. */
export async function renderSnapshotAsync(
  nodes: readonly AriaNode[],
  options: RenderSnapshotOptions,
  signal?: AbortSignal,
): Promise<RenderedSnapshot> {
  const list = await listSnapshotLinesAsync(nodes, options, signal);
  return list === undefined ? scopeMissing() : renderSnapshotList(list, options);
}

/** {@link listSnapshotLines} as steps that yield when `pace` says a slice of work is spent. */
export function* listSnapshotSteps(
  nodes: readonly AriaNode[],
  pace: Pace,
  options: RenderSnapshotOptions,
): Steps<SnapshotList | undefined> {
  let roots = nodes;
  if (options.scopeRef !== undefined) {
    const scoped = findByRef(nodes, options.scopeRef);
    if (!scoped) return undefined;
    roots = [scoped];
  }
  const lineOptions = {
    keep: options.keepRepeated ?? 3,
    maxText: options.maxTextLength ?? 160,
    urls: options.urls ?? false,
    ...(options.pageUrl === undefined ? {} : { pageUrl: options.pageUrl }),
  };
  let entries = yield* flattenSteps(roots, { ...lineOptions, expand: true }, pace);
  // Runs are collapsed when the whole tree does not fit, and when it fits but its runs of like
  // items would take more than half the budget (a product grid, a feed: the first view is an
  // overview, `expand` or `find` reads the items). The decision depends on the tree and the
  // budget, never on the cursor, so pages of one snapshot agree. A search looks inside collapsed
  // runs too.
  const mayCollapse = !(options.expand ?? false) && options.find === undefined;
  let collapsed = false;
  if (mayCollapse) {
    const budget = pageBudget(options.maxTokens);
    const short = () => flattenSteps(roots, { ...lineOptions, expand: false }, pace);
    if (options.collapse !== undefined || !fitsIn(entries, 0, 0, budget)) {
      collapsed = options.collapse ?? true;
      if (collapsed) entries = yield* short();
    } else {
      const collapsedEntries = yield* short();
      // Bytes bound tokens from above: lines are counted only when the bytes saved could matter.
      const savedAtMost =
        byteBound(entries, 0, 0, Number.POSITIVE_INFINITY) -
        byteBound(collapsedEntries, 0, 0, Number.POSITIVE_INFINITY);
      collapsed =
        savedAtMost > budget / 2 && tokensOf(entries) - tokensOf(collapsedEntries) > budget / 2;
      if (collapsed) entries = collapsedEntries;
    }
  }
  if (options.find) entries = yield* filterMatches(entries, options.find, pace);
  return { lines: entries, token: yield* pageTokenSteps(entries, pace), collapsed };
}

/**
 * The page token of a list: 8 hex digits of the SHA-256 of its lines as rendered from the top.
 * Equal tokens mean equal lines (short of a one-in-four-billion chance), so a cursor counts the
 * same nodes in both.
 */
export function pageTokenOf(lines: readonly SnapshotLine[]): string {
  return runSteps(pageTokenSteps(lines, NO_PAUSE));
}

function* pageTokenSteps(lines: readonly SnapshotLine[], pace: Pace): Steps<string> {
  const hash = createHash('sha256');
  for (const entry of lines) {
    if (pace.due()) yield;
    hash.update(indent(entry, 0)).update('\n');
  }
  return hash.digest('hex').slice(0, 8);
}

/** One line as shown on the first page, with its indentation. */
export function lineText(entry: SnapshotLine): string {
  return indent(entry, 0);
}

/** Smallest page a budget leaves for lines. */
const MIN_PAGE_TOKENS = 40;

function pageBudget(maxTokens: number): number {
  return Math.max(MIN_PAGE_TOKENS, maxTokens);
}

/**
 * Renders one page of a list within `maxTokens` real tokens, from `cursor` on: cut at a line
 * boundary with a marker naming the next cursor and the list's page token, interactive elements
 * of the cut part listed before it. Lines are counted one by one as the page fills, never the
 * whole text again; a first line longer than the whole budget is cut inside.
 */
export function renderSnapshotList(
  list: SnapshotList,
  options: Pick<RenderSnapshotOptions, 'maxTokens' | 'cursor'>,
): RenderedSnapshot {
  const entries = list.lines;
  const page = list.token;
  const total = entries.length;
  if (total === 0) {
    return { text: '', body: '', totalNodes: 0, shownNodes: 0, tokens: 0, page, list };
  }
  const start = Math.min(Math.max(0, options.cursor ?? 0), total);
  let baseDepth = Number.POSITIVE_INFINITY;
  for (let index = start; index < total; index += 1) {
    baseDepth = Math.min(baseDepth, (entries[index] as Entry).depth);
  }
  if (start === 0 || !Number.isFinite(baseDepth)) baseDepth = 0;
  const budget = pageBudget(options.maxTokens);
  const bound = byteBound(entries, start, baseDepth, budget);
  if (bound <= budget) {
    // Fits without counting: a token holds at least one UTF-8 byte.
    const text = entries
      .slice(start)
      .map((entry) => indent(entry, baseDepth))
      .join('\n');
    return {
      text,
      body: text,
      totalNodes: total,
      shownNodes: total - start,
      tokens: bound,
      page,
      list,
    };
  }
  const fits = fitsIn(entries, start, baseDepth, budget);
  const markerReserve = fits ? 0 : lineTokens(cutMarkerOf(total, total, total, 10 ** 12, page));
  const room = budget - markerReserve;
  // The interactive elements further down (controls, links of menus) are listed on the first
  // page only: a reader paging on reaches them, and the first page named them already. They may
  // take at most 30% of the page, and no more than listing every one after `start` costs.
  const listing = start === 0 && !fits;
  let listingReserve = 0;
  if (listing) {
    const cap = Math.floor(room * 0.3);
    const keys = new Set<string>();
    let cost = lineTokens(listingHeader(total, total));
    for (let index = start; index < total && cost <= cap; index += 1) {
      for (const element of listable(entries[index] as Entry)) {
        if (element.key !== undefined && keys.has(element.key)) continue;
        if (element.key !== undefined) keys.add(element.key);
        cost += lineTokens(`- ${element.line}`);
      }
    }
    listingReserve = Math.min(cap, cost);
  }
  const mainBudget = room - listingReserve;
  const lines: string[] = [];
  let used = 0;
  let usedChars = 0;
  let index = start;
  for (; index < total; index += 1) {
    const line = indent(entries[index] as Entry, baseDepth);
    const cost = lineTokens(line);
    if (used + cost > mainBudget && index > start) break;
    if (used + cost > room) {
      // One line longer than the whole page: show its head and go on after it.
      const kept = takeTokens(line, Math.max(1, room - used - 4)).text;
      const cut = `${kept}…`;
      lines.push(cut);
      used += lineTokens(cut);
      usedChars += cut.length + 1;
      index += 1;
      break;
    }
    lines.push(line);
    used += cost;
    usedChars += line.length + 1;
  }
  if (index >= total) {
    const text = lines.join('\n');
    return {
      text,
      body: text,
      totalNodes: total,
      shownNodes: total - start,
      tokens: used,
      page,
      list,
    };
  }
  const tokensPerChar = used / Math.max(1, usedChars);
  const restInteractive: string[] = [];
  // A link that leads where one already shown or listed leads, with the same words, is not
  // listed again (the same menu at the top and the bottom of a page).
  const keys = new Set<string>();
  for (let shown = start; listing && shown < index; shown += 1) {
    for (const key of (entries[shown] as Entry).linkKeys) keys.add(key);
  }
  let restChars = 0;
  for (let rest = index; rest < total; rest += 1) {
    const entry = entries[rest] as Entry;
    restChars += entry.line.length + 3 + Math.max(0, entry.depth - baseDepth);
    if (!listing) continue;
    for (const element of listable(entry)) {
      if (element.key !== undefined && keys.has(element.key)) continue;
      if (element.key !== undefined) keys.add(element.key);
      restInteractive.push(element.line);
    }
  }
  const listed: string[] = [];
  const listingRoom = room - lineTokens(listingHeader(total, total));
  for (const action of restInteractive) {
    const line = `- ${action}`;
    const cost = lineTokens(line);
    if (used + cost > listingRoom) break;
    listed.push(line);
    used += cost;
  }
  if (listed.length > 0) {
    const header = listingHeader(listed.length, restInteractive.length);
    lines.push(header, ...listed);
    used += lineTokens(header);
  }
  // The rest is not counted (it can be the whole page): its tokens are estimated from the
  // tokens per character of the lines shown.
  const restTokens = Math.ceil(restChars * tokensPerChar);
  const cutMarker = cutMarkerOf(start + 1, index, total, restTokens, page);
  const body = lines.join('\n');
  const text = `${body}\n${cutMarker}`;
  return {
    text,
    body,
    cutMarker,
    totalNodes: total,
    shownNodes: index - start,
    nextCursor: index,
    tokens: used + lineTokens(cutMarker),
    page,
    list,
  };
}

/** What a line lists among the interactive elements further down. */
function listable(entry: Entry): ListedElement[] {
  return entry.links.length === 0
    ? (entry.actions as ListedElement[])
    : [...entry.actions, ...entry.links];
}

function listingHeader(listed: number, of: number): string {
  return `[interactive elements further down, ${listed} of ${of}:]`;
}

function cutMarkerOf(
  first: number,
  next: number,
  total: number,
  restTokens: number,
  page: string,
): string {
  return `[cut: nodes ${first}-${next} of ${total} shown, ≈${restTokens.toLocaleString('en-US')} tokens more. Continue with browser_snapshot cursor: ${next}, page: ${page}]`;
}

/**
 * An upper bound of the tokens of the lines from `start` on, without counting: a token holds at
 * least one UTF-8 byte. Stops adding past `limit`.
 */
function byteBound(
  entries: readonly Entry[],
  start: number,
  baseDepth: number,
  limit: number,
): number {
  let sum = 0;
  for (let index = start; index < entries.length && sum <= limit; index += 1) {
    const entry = entries[index] as Entry;
    sum += Buffer.byteLength(entry.line) + 3 + Math.max(0, entry.depth - baseDepth);
  }
  return sum;
}

/**
 * Whether the lines from `start` on fit in `budget` real tokens: counted line by line, and
 * never past the budget, so a long page costs no more than one page of counting.
 */
function fitsIn(
  entries: readonly Entry[],
  start: number,
  baseDepth: number,
  budget: number,
): boolean {
  if (byteBound(entries, start, baseDepth, budget) <= budget) return true;
  let used = 0;
  for (let index = start; index < entries.length; index += 1) {
    used += lineTokens(indent(entries[index] as Entry, baseDepth));
    if (used > budget) return false;
  }
  return true;
}

/** Real tokens of a list's lines from the top (for lists known to fit a page). */
function tokensOf(entries: readonly Entry[]): number {
  let total = 0;
  for (const entry of entries) total += lineTokens(indent(entry, 0));
  return total;
}

/**
 * A line with its indentation: one space per level, which costs no token at the first level
 * (` -` is one token, as `-` is) where two spaces cost one.
 */
function indent(entry: Entry, baseDepth: number): string {
  return `${' '.repeat(Math.max(0, entry.depth - baseDepth))}- ${entry.line}`;
}

function* filterMatches(entries: Entry[], find: LineMatcher, pace: Pace): Steps<Entry[]> {
  const keep = new Set<number>();
  for (let index = 0; index < entries.length; index += 1) {
    if (pace.due()) yield;
    if (!find((entries[index] as Entry).line)) continue;
    let current = index;
    while (current >= 0 && !keep.has(current)) {
      keep.add(current);
      current = (entries[current] as Entry).parent;
    }
  }
  const remap = new Map<number, number>();
  const result: Entry[] = [];
  entries.forEach((entry, index) => {
    if (!keep.has(index)) return;
    remap.set(index, result.length);
    result.push({ ...entry, parent: remap.get(entry.parent) ?? -1 });
  });
  return result;
}
