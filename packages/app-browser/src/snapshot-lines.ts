// The list of lines a snapshot is paged through: a forest flattened in document order, runs of
// like siblings collapsed.
import { type AriaNode, isInteractive } from './aria-tree.js';
import { NO_PAUSE, type Pace, runSteps, type Steps } from './pace.js';
import {
  headOf,
  isInline,
  isPlainParagraph,
  type LineOptions,
  type ListedElement,
  linkKey,
  listedElements,
  markdownHeading,
  PROSE_CHUNK_CHARACTERS,
  proseText,
  showsRef,
} from './snapshot-line-format.js';
import { inlinePieces, joinPieces, type Piece, type Segment } from './snapshot-prose.js';

/** One node (or one piece of a long prose line) of the list a snapshot is paged through. */
export interface SnapshotLine {
  /** Depth in the tree (0 for a root). */
  readonly depth: number;
  /** The node as one line, without indentation. */
  readonly line: string;
  /**
   * The element of an element line that can be acted on: listed among the interactive elements
   * further down when the first page is cut before it.
   */
  readonly actions: readonly ListedElement[];
  /**
   * The links of a prose line that holds nothing but links (a menu): listed further down on the
   * first page too. Links inside sentences are read with their text, never listed; neither are
   * links to a place on the same page (a table of contents).
   */
  readonly links: readonly ListedElement[];
  /** Keys (see {@link ListedElement.key}) of every link with a ref on the line. */
  readonly linkKeys: readonly string[];
  /** Whether the model acts on this node or on an inline element of its line. */
  readonly interactive: boolean;
  /** Index of the parent line, -1 for a root. */
  readonly parent: number;
  /** Role and ref of the node: lines with equal identity are the same node, maybe changed. */
  readonly identity: string;
}

const COLLAPSE_MIN_RUN = 6;

type Entry = SnapshotLine;

/**
 * Turns a forest into the lines a snapshot shows, in document order. Inline runs (text, links,
 * code, emphasis) become one line of prose: on the line of the node holding them when they come
 * first in it (`- listitem: The operand of a unary [borrow](e443) operator.`), else as a line of
 * their own (`- text: …`; a lone link keeps its element line). Refs are shown on what can be
 * acted on and on containers (see {@link showsRef}). Unless `expand`, a run of six or more
 * sibling blocks of the same shape keeps the first `keep` and states how many more there are.
 */
export function flattenNodes(nodes: readonly AriaNode[], options: LineOptions): Entry[] {
  return runSteps(flattenSteps(nodes, options, NO_PAUSE));
}

/** {@link flattenNodes} as steps that yield when `pace` says a slice of work is spent. */
export function* flattenSteps(
  nodes: readonly AriaNode[],
  options: LineOptions,
  pace: Pace,
): Steps<Entry[]> {
  const into: Entry[] = [];
  yield* pushChildren(nodes, 0, -1, into, options, pace);
  return into;
}

function* pushChildren(
  nodes: readonly AriaNode[],
  depth: number,
  parent: number,
  into: Entry[],
  options: LineOptions,
  pace: Pace,
): Steps<void> {
  let index = 0;
  while (index < nodes.length) {
    if (pace.due()) yield;
    const node = nodes[index] as AriaNode;
    if (isInline(node)) {
      let end = index + 1;
      while (end < nodes.length && isInline(nodes[end] as AriaNode)) {
        if (pace.due()) yield;
        end += 1;
      }
      pushRun(nodes.slice(index, end), depth, parent, into, options);
      index = end;
      continue;
    }
    let runEnd = index + 1;
    if (!options.expand) {
      const shape = shapeOf(node);
      while (runEnd < nodes.length) {
        if (pace.due()) yield;
        const next = nodes[runEnd] as AriaNode;
        if (isInline(next) || shapeOf(next) !== shape) break;
        runEnd += 1;
      }
    }
    const runLength = runEnd - index;
    if (runLength >= COLLAPSE_MIN_RUN && runLength > options.keep) {
      for (let kept = index; kept < index + options.keep; kept += 1) {
        yield* pushNode(nodes[kept] as AriaNode, depth, parent, into, options, pace);
      }
      let firstRef: string | undefined;
      let lastRef: string | undefined;
      let interactiveCount = 0;
      for (let item = index + options.keep; item < runEnd; item += 1) {
        if (pace.due()) yield;
        const hidden = nodes[item] as AriaNode;
        if (showsRef(hidden)) {
          firstRef ??= hidden.ref;
          lastRef = hidden.ref;
        }
        interactiveCount += countInteractive(hidden);
      }
      const refRange = firstRef === undefined ? '' : ` (refs ${firstRef}…${lastRef})`;
      const actionable =
        interactiveCount > 0 ? `, ${interactiveCount} interactive elements inside` : '';
      const line = `… ${runEnd - index - options.keep} more ${node.role} items like the above${refRange}${actionable}; browser_snapshot with expand: true (or find) shows them`;
      into.push({
        depth,
        line,
        actions: NONE,
        links: NONE,
        linkKeys: NO_KEYS,
        interactive: false,
        parent,
        identity: 'more',
      });
      index = runEnd;
      continue;
    }
    yield* pushNode(node, depth, parent, into, options, pace);
    index += 1;
  }
}

/** A run of inline siblings on a line of its own. */
function pushRun(
  run: readonly AriaNode[],
  depth: number,
  parent: number,
  into: Entry[],
  options: LineOptions,
): void {
  const only = run[0] as AriaNode;
  if (run.length === 1 && only.role === 'link' && only.children.length === 0) {
    // A lone link keeps its element line: `link "Home" [ref=e5]`.
    pushLines(headOf(only, options), [], { depth, parent, into, node: only, options });
    return;
  }
  const pieces: Piece[] = [];
  for (const node of run) inlinePieces(node, options, pieces);
  if (pieces.length === 0) return;
  pushLines('text', pieces, { depth, parent, into, node: only, options, interactive: false });
}

function* pushNode(
  node: AriaNode,
  depth: number,
  parent: number,
  into: Entry[],
  options: LineOptions,
  pace: Pace,
): Steps<void> {
  if (isEmptyBlock(node)) return;
  const heading = markdownHeading(node, options);
  const head = heading ?? headOf(node, options);
  const pieces: Piece[] = [];
  let rest = node.children;
  if (node.text !== undefined) pieces.push({ text: proseText(node.text), kind: 'text' });
  else {
    // Inline content that comes first in the node goes on the node's own line; so does a
    // first paragraph of prose (`- listitem: text` for a list item holding a paragraph).
    let end = 0;
    while (end < rest.length && isInline(rest[end] as AriaNode)) end += 1;
    const first = rest[0];
    if (end === 0 && !isInteractive(node) && isPlainParagraph(first)) {
      inlinePieces({ ...(first as AriaNode), role: 'text' }, options, pieces);
      end = 1;
    } else {
      for (const child of rest.slice(0, end)) inlinePieces(child, options, pieces);
    }
    rest = rest.slice(end);
  }
  // A heading's inline content follows its hashes: `### [Table of Contents](e519)`.
  const joiner = heading !== undefined && node.name === undefined ? ' ' : ': ';
  const self = pushLines(head, pieces, { depth, parent, into, node, options, joiner });
  yield* pushChildren(rest, depth + 1, self, into, options, pace);
}

const NONE: readonly ListedElement[] = [];

const NO_KEYS: readonly string[] = [];

/** Where {@link pushLines} puts a node's lines. */
interface LinePlace {
  readonly depth: number;
  readonly parent: number;
  readonly into: Entry[];
  /** The node the lines show. */
  readonly node: AriaNode;
  readonly options: LineOptions;
  /** Whether the node itself is acted on. Default: whether it is interactive. */
  readonly interactive?: boolean;
  /** What joins the head and the prose of the node's line. Default `: `. */
  readonly joiner?: string;
}

/**
 * Pushes a node's line (`head: prose`), and the continuation lines of a long prose line one level
 * deeper. Returns the index of the node's line.
 */
function pushLines(head: string, pieces: readonly Piece[], place: LinePlace): number {
  const { depth, parent, into, node, options } = place;
  const interactive = place.interactive ?? isInteractive(node);
  const identity = `${node.role} ${node.ref ?? ''}`;
  const own = interactive ? listedElements(node, options) : NONE;
  const ownKey = interactive ? linkKey(node, node.name ?? '') : undefined;
  if (pieces.length === 0) {
    into.push({
      depth,
      line: head,
      actions: own,
      links: NONE,
      linkKeys: ownKey === undefined ? NO_KEYS : [ownKey],
      interactive,
      parent,
      identity,
    });
    return into.length - 1;
  }
  const segments = joinPieces(pieces, Math.max(80, PROSE_CHUNK_CHARACTERS - head.length));
  // A line with words anywhere is a sentence, each of its segments too (a link that starts a
  // continuation line is still read with its text).
  const prose = segments.some((segment) => segment.prose);
  const listed = (segment: Segment) =>
    prose || segment.actions.length === 0 ? NONE : segment.actions;
  const keysOf = (segment: Segment, more: readonly string[] = NO_KEYS) =>
    segment.keys.length === 0 && more.length === 0 ? NO_KEYS : [...more, ...segment.keys];
  const first = segments[0] as Segment;
  into.push({
    depth,
    line: `${head}${place.joiner ?? ': '}${first.text}`,
    actions: own,
    links: listed(first),
    linkKeys: keysOf(first, ownKey === undefined ? NO_KEYS : [ownKey]),
    interactive: interactive || first.acts,
    parent,
    identity,
  });
  const self = into.length - 1;
  segments.slice(1).forEach((segment, index) => {
    into.push({
      depth: depth + 1,
      line: `… ${segment.text}`,
      actions: NONE,
      links: listed(segment),
      linkKeys: keysOf(segment),
      interactive: segment.acts,
      parent: self,
      identity: `${identity} +${index + 1}`,
    });
  });
  return self;
}

/** Blocks that say nothing when empty. */
const EMPTY_SAYS_NOTHING: ReadonlySet<string> = new Set(['listitem', 'paragraph']);

/**
 * An empty list item or paragraph (no name, text, state, children or ref to show, a placeholder
 * a script fills later): decorative, left out.
 */
function isEmptyBlock(node: AriaNode): boolean {
  return (
    EMPTY_SAYS_NOTHING.has(node.role) &&
    node.name === undefined &&
    node.text === undefined &&
    node.children.length === 0 &&
    node.attributes.length === 0 &&
    !isInteractive(node)
  );
}

function countInteractive(node: AriaNode): number {
  return (
    (isInteractive(node) ? 1 : 0) +
    node.children.reduce((sum, child) => sum + countInteractive(child), 0)
  );
}

/** Siblings with the same shape (role and child roles) form a repeated run. */
function shapeOf(node: AriaNode): string {
  const childRoles = node.children.map((child) => child.role).join(',');
  return `${node.role}(${childRoles})`;
}
