import { createHash } from 'node:crypto';
import { type AriaNode, isInteractive } from './aria-tree.js';
import type { LineMatcher } from './page-text.js';

/** Options for {@link renderSnapshot}. */
export interface RenderSnapshotOptions {
  /** Token budget of the rendered text (tokens ≈ characters / 4). */
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
  /** Texts longer than this are shortened, their length stated. Default 160 characters. */
  maxTextLength?: number;
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
  /** Estimated tokens of `text`. */
  readonly tokens: number;
  /** Whether `scopeRef` named no node. */
  readonly scopeMissing?: boolean;
  /** The page token of the list the cursor counts in, see {@link pageTokenOf}. */
  readonly page: string;
  /** The list the page was cut from. */
  readonly list: SnapshotList;
}

/** One node of the list a snapshot is paged through. */
export interface SnapshotLine {
  /** Depth in the tree (0 for a root). */
  readonly depth: number;
  /** The node as one line, without indentation. */
  readonly line: string;
  /** The shorter line listed among the interactive elements further down. */
  readonly compact: string;
  /** Whether the model acts on this node. */
  readonly interactive: boolean;
  /** Index of the parent line, -1 for a root. */
  readonly parent: number;
  /** Role and ref of the node: lines with equal identity are the same node, maybe changed. */
  readonly identity: string;
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

const COLLAPSE_MIN_RUN = 6;

/** Estimated tokens of a text: characters / 4, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** One node as one line, without indentation: `button "Save" [disabled] [ref=e4]: text`. */
export function formatNode(node: AriaNode, maxTextLength = 160): string {
  let line = node.role === 'text' ? 'text' : node.role;
  if (node.name !== undefined) line += ` ${JSON.stringify(shorten(node.name, maxTextLength))}`;
  for (const attribute of node.attributes) {
    if (attribute === 'cursor=pointer') continue;
    line += ` [${attribute}]`;
  }
  if (node.ref !== undefined) line += ` [ref=${node.ref}]`;
  if (node.text !== undefined) line += `: ${shorten(node.text, maxTextLength)}`;
  return line;
}

/** Shortens a long text to its head and states the full length. */
export function shorten(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const head = text.slice(0, Math.max(20, Math.floor(maxLength * 0.75)));
  return `${head}… (${text.length.toLocaleString('en-US')} chars)`;
}

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
 * Renders an accessibility tree for a model within a token budget: when the whole tree does not
 * fit, repeated sibling runs are collapsed (the first few kept, the count and the hidden refs
 * stated); long texts are shortened; and
 * past the budget the list is cut at a node boundary with a marker and a cursor. Interactive
 * elements are never the first part dropped: once the document-order part is full, the
 * interactive elements of the cut part are still listed one per line while the budget lasts.
 */
export function renderSnapshot(
  nodes: readonly AriaNode[],
  options: RenderSnapshotOptions,
): RenderedSnapshot {
  const list = listSnapshotLines(nodes, options);
  if (list === undefined) {
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
  return renderSnapshotList(list, options);
}

/**
 * The list of node lines a snapshot is paged through: scoped to `scopeRef`, filtered by `find`,
 * and with repeated runs collapsed when the whole tree does not fit the budget (or as `collapse`
 * says). Undefined when `scopeRef` names no node.
 */
export function listSnapshotLines(
  nodes: readonly AriaNode[],
  options: RenderSnapshotOptions,
): SnapshotList | undefined {
  let roots = nodes;
  if (options.scopeRef !== undefined) {
    const scoped = findByRef(nodes, options.scopeRef);
    if (!scoped) return undefined;
    roots = [scoped];
  }
  const maxText = options.maxTextLength ?? 160;
  const budgetChars = Math.max(200, options.maxTokens * 4);
  const keep = options.keepRepeated ?? 3;
  let entries: Entry[] = [];
  flatten(roots, 0, -1, entries, { expand: true, keep, maxText });
  // Runs are collapsed only when the whole tree does not fit (the decision depends on the tree
  // and the budget, never on the cursor, so pages of one snapshot agree). A search looks inside
  // collapsed runs too.
  const mayCollapse = !(options.expand ?? false) && options.find === undefined;
  const collapsed =
    mayCollapse &&
    (options.collapse ?? entries.reduce((sum, entry) => sum + lineCost(entry, 0), 0) > budgetChars);
  if (collapsed) {
    entries = [];
    flatten(roots, 0, -1, entries, { expand: false, keep, maxText });
  }
  if (options.find) entries = filterMatches(entries, options.find);
  return { lines: entries, token: pageTokenOf(entries), collapsed };
}

/**
 * The page token of a list: 8 hex digits of the SHA-256 of its lines as rendered from the top.
 * Equal tokens mean equal lines (short of a one-in-four-billion chance), so a cursor counts the
 * same nodes in both.
 */
export function pageTokenOf(lines: readonly SnapshotLine[]): string {
  const hash = createHash('sha256');
  for (const entry of lines) hash.update(indent(entry, 0)).update('\n');
  return hash.digest('hex').slice(0, 8);
}

/** One line as shown on the first page, with its indentation. */
export function lineText(entry: SnapshotLine): string {
  return indent(entry, 0);
}

/**
 * Renders one page of a list within `maxTokens`, from `cursor` on: cut at a node boundary with a
 * marker naming the next cursor and the list's page token, interactive elements of the cut part
 * listed before it.
 */
export function renderSnapshotList(
  list: SnapshotList,
  options: Pick<RenderSnapshotOptions, 'maxTokens' | 'cursor'>,
): RenderedSnapshot {
  const entries = list.lines;
  const budgetChars = Math.max(200, options.maxTokens * 4);
  const page = list.token;
  const total = entries.length;
  if (total === 0) {
    return { text: '', body: '', totalNodes: 0, shownNodes: 0, tokens: 0, page, list };
  }
  const start = Math.min(Math.max(0, options.cursor ?? 0), total);
  const baseDepth = start === 0 ? 0 : Math.min(...entries.slice(start).map((entry) => entry.depth));
  const lines: string[] = [];
  let used = 0;
  let index = start;
  const allRest = entries.slice(start).reduce((sum, entry) => sum + lineCost(entry, baseDepth), 0);
  const fits = allRest <= budgetChars;
  const mainBudget = fits ? budgetChars : Math.floor(budgetChars * 0.7);
  for (; index < total; index += 1) {
    const entry = entries[index] as Entry;
    const cost = lineCost(entry, baseDepth);
    if (used + cost > mainBudget && index > start) break;
    lines.push(indent(entry, baseDepth));
    used += cost;
  }
  if (index >= total) {
    const text = lines.join('\n');
    return {
      text,
      body: text,
      totalNodes: total,
      shownNodes: total - start,
      tokens: estimateTokens(text),
      page,
      list,
    };
  }
  const rest = entries.slice(index);
  const restInteractive = rest.filter((entry) => entry.interactive);
  const listed: string[] = [];
  const markerReserve = 260;
  for (const entry of restInteractive) {
    const line = `- ${entry.compact}`;
    if (used + line.length + 1 + markerReserve > budgetChars) break;
    listed.push(line);
    used += line.length + 1;
  }
  const restTokens = Math.ceil(rest.reduce((sum, entry) => sum + lineCost(entry, 0), 0) / 4);
  if (listed.length > 0) {
    lines.push(
      `[interactive elements further down, ${listed.length} of ${restInteractive.length}:]`,
      ...listed,
    );
  }
  const cutMarker = `[cut: nodes ${start + 1}-${index} of ${total} shown; ${rest.length} more nodes (≈${restTokens.toLocaleString('en-US')} tokens) not shown. Continue with browser_snapshot cursor: ${index}, page: ${page}]`;
  const body = lines.join('\n');
  const text = `${body}\n${cutMarker}`;
  return {
    text,
    body,
    cutMarker,
    totalNodes: total,
    shownNodes: index - start,
    nextCursor: index,
    tokens: estimateTokens(text),
    page,
    list,
  };
}

function lineCost(entry: Entry, baseDepth: number): number {
  return entry.line.length + 3 + 2 * Math.max(0, entry.depth - baseDepth);
}

function indent(entry: Entry, baseDepth: number): string {
  return `${'  '.repeat(Math.max(0, entry.depth - baseDepth))}- ${entry.line}`;
}

function flatten(
  nodes: readonly AriaNode[],
  depth: number,
  parent: number,
  into: Entry[],
  options: { expand: boolean; keep: number; maxText: number },
): void {
  let index = 0;
  while (index < nodes.length) {
    const node = nodes[index] as AriaNode;
    let runEnd = index + 1;
    if (!options.expand) {
      const shape = shapeOf(node);
      while (runEnd < nodes.length && shapeOf(nodes[runEnd] as AriaNode) === shape) runEnd += 1;
    }
    const runLength = runEnd - index;
    if (runLength >= COLLAPSE_MIN_RUN && runLength > options.keep) {
      for (let kept = index; kept < index + options.keep; kept += 1) {
        pushNode(nodes[kept] as AriaNode, depth, parent, into, options);
      }
      const hidden = nodes.slice(index + options.keep, runEnd);
      const refs = hidden.map((item) => item.ref).filter((ref) => ref !== undefined);
      const refRange = refs.length > 0 ? ` (refs ${refs[0]}…${refs[refs.length - 1]})` : '';
      const interactiveCount = hidden.reduce((sum, item) => sum + countInteractive(item), 0);
      const actionable =
        interactiveCount > 0 ? `, ${interactiveCount} interactive elements inside` : '';
      const line = `… ${hidden.length} more ${node.role} items like the above${refRange}${actionable}; browser_snapshot with expand: true (or find) shows them`;
      into.push({ depth, line, compact: line, interactive: false, parent, identity: 'more' });
      index = runEnd;
      continue;
    }
    pushNode(node, depth, parent, into, options);
    index += 1;
  }
}

function pushNode(
  node: AriaNode,
  depth: number,
  parent: number,
  into: Entry[],
  options: { expand: boolean; keep: number; maxText: number },
): void {
  const line = formatNode(node, options.maxText);
  const interactive = isInteractive(node);
  into.push({
    depth,
    line,
    compact: interactive ? formatNode({ ...node, text: undefined } as AriaNode, 60) : line,
    interactive,
    parent,
    identity: `${node.role} ${node.ref ?? ''}`,
  });
  const self = into.length - 1;
  flatten(node.children, depth + 1, self, into, options);
}

function countInteractive(node: AriaNode): number {
  return (
    (isInteractive(node) ? 1 : 0) +
    node.children.reduce((sum, child) => sum + countInteractive(child), 0)
  );
}

/** Siblings with the same shape (role and child roles) form a repeated run. */
function shapeOf(node: AriaNode): string {
  if (node.role === 'text') return `text#${node.text ?? ''}`;
  const childRoles = node.children.map((child) => child.role).join(',');
  return `${node.role}(${childRoles})`;
}

function filterMatches(entries: Entry[], find: LineMatcher): Entry[] {
  const keep = new Set<number>();
  entries.forEach((entry, index) => {
    if (!find(entry.line)) return;
    let current = index;
    while (current >= 0 && !keep.has(current)) {
      keep.add(current);
      current = (entries[current] as Entry).parent;
    }
  });
  const remap = new Map<number, number>();
  const result: Entry[] = [];
  entries.forEach((entry, index) => {
    if (!keep.has(index)) return;
    remap.set(index, result.length);
    result.push({ ...entry, parent: remap.get(entry.parent) ?? -1 });
  });
  return result;
}
