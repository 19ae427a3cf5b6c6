import { type AriaNode, isInteractive } from './aria-tree.js';
import { NO_PAUSE, type Pace, runSteps, type Steps } from './pace.js';

/**
 * An element listed among the interactive elements further down, as a short element line
 * (`button "Save" [ref=e4]`).
 */
export interface ListedElement {
  /** The short element line. */
  readonly line: string;
  /**
   * For a link with a target: its label and target. Links with equal keys lead to the same place
   * with the same words, so one shown or listed already is not listed again.
   */
  readonly key?: string;
}

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

/** How nodes become lines. */
export interface LineOptions {
  /** Keep every repeated sibling instead of collapsing runs of six or more. */
  readonly expand: boolean;
  /** Siblings of a collapsed run that stay visible. */
  readonly keep: number;
  /** Names (and other short texts) longer than this are shortened, their length stated. */
  readonly maxText: number;
  /**
   * Show link targets: beside an inline link (`[borrow](e443 expressions.html#borrow)`) and as
   * `[url=…]` on a link's own line, relative to `pageUrl` when they share its origin.
   */
  readonly urls: boolean;
  /** Address of the page, to show link targets relative to it. */
  readonly pageUrl?: string;
}

/**
 * Prose lines longer than this many characters go on as continuation lines (`- … more text`),
 * split between words and never inside a link: a cursor counts whole lines, so no line may be
 * much longer than a small page.
 */
export const PROSE_CHUNK_CHARACTERS = 800;

const COLLAPSE_MIN_RUN = 6;

/** Link labels in prose longer than this are shortened, their length stated. */
const LABEL_LENGTH = PROSE_CHUNK_CHARACTERS / 2;

/** Roles whose content flows inside a line of text (when nothing in them is a block). */
const INLINE_ROLES: ReadonlySet<string> = new Set([
  'text',
  'link',
  'code',
  'emphasis',
  'strong',
  'subscript',
  'superscript',
  'mark',
  'insertion',
  'deletion',
  'time',
]);

/**
 * Containers a snapshot is scoped to (`ref`) or an action scrolls: landmarks, regions, tables and
 * their rows, lists, forms, dialogs, articles, menus, tab panels. They show their ref.
 */
const SCOPE_ROLES: ReadonlySet<string> = new Set([
  'main',
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'region',
  'search',
  'form',
  'dialog',
  'alertdialog',
  'article',
  'feed',
  'document',
  'application',
  'group',
  'table',
  'grid',
  'treegrid',
  'row',
  'list',
  'tree',
  'tablist',
  'tabpanel',
  'menu',
  'menubar',
  'toolbar',
  'radiogroup',
]);

/** Attributes never shown on a link: every link has them, or they are shown only on request. */
const QUIET_ATTRIBUTES = new Set(['cursor=pointer']);

const inlineMemo = new WeakMap<AriaNode, boolean>();

/**
 * Whether a node flows inside a line of text: a text run, a link, or code, emphasis and the like
 * whose content is inline too. Anything else that can be acted on (a button, a field, a clickable
 * span) stands on its own line.
 */
export function isInline(node: AriaNode): boolean {
  const known = inlineMemo.get(node);
  if (known !== undefined) return known;
  let inline = INLINE_ROLES.has(node.role) && (node.role === 'link' || !isInteractive(node));
  if (inline) inline = node.children.every((child) => isInline(child));
  inlineMemo.set(node, inline);
  return inline;
}

/**
 * Whether a node's ref is shown: on what can be acted on, and on containers a snapshot can be
 * scoped to with `ref` or an action can scroll (a landmark, a region, a table, a row, a list, a
 * form, a dialog …). Paragraphs, list items, cells and headings show none.
 */
export function showsRef(node: AriaNode): boolean {
  if (node.ref === undefined) return false;
  if (isInteractive(node)) return true;
  // A named generic is what a page made to be used (a <summary> that opens its details).
  if (node.role === 'generic' && node.name !== undefined) return true;
  return SCOPE_ROLES.has(node.role);
}

/** A paragraph of prose only, which reads on the line of the list item or cell holding it. */
function isPlainParagraph(node: AriaNode | undefined): boolean {
  return (
    node !== undefined &&
    node.role === 'paragraph' &&
    node.name === undefined &&
    !isInteractive(node) &&
    node.children.every((child) => isInline(child))
  );
}

/**
 * One node as one line, without indentation and with every ref:
 * `button "Save" [disabled] [ref=e4]: text`. The lines of deltas and action results; snapshots
 * render through {@link flattenNodes}.
 */
export function formatNode(node: AriaNode, maxTextLength = 160): string {
  let line = node.role;
  if (node.name !== undefined) line += ` ${JSON.stringify(shorten(node.name, maxTextLength))}`;
  for (const attribute of node.attributes) {
    if (attribute === 'cursor=pointer' || attribute.startsWith('url=')) continue;
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

/** The head of a node's own line: role, name, attributes and (when shown) its ref. */
function headOf(node: AriaNode, options: LineOptions): string {
  let line = node.role;
  if (node.name !== undefined) line += ` ${JSON.stringify(shorten(node.name, options.maxText))}`;
  for (const attribute of node.attributes) {
    if (QUIET_ATTRIBUTES.has(attribute)) continue;
    if (attribute.startsWith('url=')) {
      if (options.urls) line += ` [url=${relativeUrl(attribute.slice(4), options.pageUrl)}]`;
      continue;
    }
    line += ` [${attribute}]`;
  }
  if (showsRef(node)) line += ` [ref=${node.ref}]`;
  return line;
}

/**
 * The head of a heading's line in Markdown (`## Title` for `heading "Title" [level=2]`), when the
 * heading shows nothing else: no ref, no state besides its level.
 */
function markdownHeading(node: AriaNode, options: LineOptions): string | undefined {
  if (node.role !== 'heading' || showsRef(node)) return undefined;
  const shown = node.attributes.filter((attribute) => !QUIET_ATTRIBUTES.has(attribute));
  const level = shown.length === 1 ? /^level=([1-6])$/.exec(shown[0] as string) : null;
  if (level === null) return undefined;
  const hashes = '#'.repeat(Number(level[1]));
  // The name is page text on a line of its own now, not in quotes: no `](` may read as a link.
  return node.name === undefined
    ? hashes
    : `${hashes} ${proseText(shorten(node.name, options.maxText))}`;
}

/** The short line of an interactive element, listed further down: no text, a short name. */
function actionLine(node: AriaNode, name?: string): string {
  const shown = name === undefined || node.name !== undefined ? node : { ...node, name };
  return formatNode({ ...shown, text: undefined, attributes: [], children: [] } as AriaNode, 60);
}

/** A link's target, from its `url=` attribute. */
function linkTarget(node: AriaNode): string | undefined {
  for (const attribute of node.attributes) {
    if (attribute.startsWith('url=')) return attribute.slice(4);
  }
  return undefined;
}

/** The key of a link with a ref and a target (see {@link ListedElement.key}). */
function linkKey(node: AriaNode, label: string): string | undefined {
  if (node.role !== 'link' || node.ref === undefined) return undefined;
  const target = linkTarget(node);
  return target === undefined ? undefined : `${label}\n${target}`;
}

/**
 * Whether a link leads to a place on its own page (`#section`, as in a table of contents): such
 * a link is not listed further down, since the cursor or `find` reads that place. A hash route
 * (`#/inbox`, `#!/inbox`) and a bare `#` (a link a script handles) lead elsewhere.
 */
export function isInPageLink(node: AriaNode, pageUrl: string | undefined): boolean {
  const target = node.role === 'link' ? linkTarget(node) : undefined;
  if (target === undefined || pageUrl === undefined) return false;
  const relative = relativeUrl(target, pageUrl);
  return relative.length > 1 && relative.startsWith('#') && !/^#!?\//.test(relative);
}

/** How an interactive element is listed further down; none for a link within its own page. */
function listedElements(node: AriaNode, options: LineOptions, label?: string): ListedElement[] {
  if (isInPageLink(node, options.pageUrl)) return [];
  const line = actionLine(node, label);
  const key = linkKey(node, label ?? node.name ?? '');
  return [key === undefined ? { line } : { line, key }];
}

/**
 * A link target as short as it reads unambiguously: from the page's own origin, its path (or
 * only `#fragment` on the same page); any other target as written.
 */
export function relativeUrl(url: string, pageUrl: string | undefined): string {
  if (pageUrl === undefined) return url;
  let target: URL;
  let page: URL;
  try {
    page = new URL(pageUrl);
    target = new URL(url, page);
  } catch {
    return url;
  }
  if (target.origin !== page.origin) return url;
  if (target.pathname === page.pathname && target.search === page.search && target.hash !== '') {
    return target.hash;
  }
  return `${target.pathname}${target.search}${target.hash}`;
}

/** A piece of a prose line: page text, code, or an inline link the model can act on. */
interface Piece {
  readonly text: string;
  /** Page text (joined without a space before closing punctuation), else ours or code. */
  readonly kind: 'text' | 'code' | 'action';
  /** How an inline link with a ref is listed further down (none for a link within the page). */
  readonly listed?: readonly ListedElement[];
  /** The key of an inline link with a ref and a target. */
  readonly key?: string;
}

/**
 * Page text inside a prose line: `](` is shown as `] (`, so no page text reads like an inline
 * link of the tools (`[label](e12)`); the tools' own links are the only `](` on a line.
 */
function proseText(text: string): string {
  return text.replaceAll('](', '] (');
}

/** Link labels keep no brackets: `[` and `]` are shown as `(` and `)`. */
function labelText(text: string): string {
  return text.replace(/\[/g, '(').replace(/\]/g, ')');
}

/** The plain text of inline nodes (a link's label): text runs and names, no refs. */
function plainText(nodes: readonly AriaNode[]): string {
  const parts: string[] = [];
  const visit = (node: AriaNode) => {
    if (node.text !== undefined) parts.push(node.text);
    else if (node.role !== 'text' && node.children.length === 0 && node.name !== undefined)
      parts.push(node.name);
    for (const child of node.children) visit(child);
  };
  for (const node of nodes) visit(node);
  return parts.join(' ');
}

function hasInlineAction(node: AriaNode): boolean {
  return (
    (node.role === 'link' && node.ref !== undefined) ||
    node.children.some((child) => hasInlineAction(child))
  );
}

/** Appends the pieces of one inline node to `into`. */
function inlinePieces(node: AriaNode, options: LineOptions, into: Piece[]): void {
  if (node.role === 'link') {
    const label = shorten(labelText(node.name ?? plainText(node.children)), LABEL_LENGTH) || 'link';
    if (node.ref === undefined) {
      into.push({ text: proseText(label), kind: 'text' });
      return;
    }
    let target = node.ref;
    for (const attribute of node.attributes) {
      if (QUIET_ATTRIBUTES.has(attribute)) continue;
      if (attribute.startsWith('url=')) {
        if (options.urls) target += ` ${relativeUrl(attribute.slice(4), options.pageUrl)}`;
        continue;
      }
      target += ` ${attribute}`;
    }
    const key = linkKey(node, label);
    into.push({
      text: `[${label}](${target})`,
      kind: 'action',
      listed: listedElements(node, options, label),
      ...(key === undefined ? {} : { key }),
    });
    return;
  }
  if (node.role === 'code' && !hasInlineAction(node)) {
    const code = node.text ?? plainText(node.children);
    if (code !== '') into.push({ text: `\`${proseText(code)}\``, kind: 'code' });
    return;
  }
  if (node.text !== undefined) into.push({ text: proseText(node.text), kind: 'text' });
  else if (node.role !== 'text' && node.children.length === 0 && node.name !== undefined) {
    into.push({ text: proseText(node.name), kind: 'text' });
  }
  for (const child of node.children) inlinePieces(child, options, into);
}

/** A segment of a prose line, with the inline actions it holds. */
interface Segment {
  readonly text: string;
  /** How its inline links are listed further down. */
  readonly actions: ListedElement[];
  /** The keys of its inline links. */
  readonly keys: string[];
  /** Whether it holds an inline link with a ref. */
  readonly acts: boolean;
  /** Whether it holds words besides its links (a sentence, not a menu). */
  readonly prose: boolean;
}

/** Text with a letter or digit: words, not separators between links. */
const WORDY = /[\p{L}\p{N}]/u;

/** Page text starting with closing punctuation joins the piece before it without a space. */
const CLOSING = /^[,.;:!?)\]}%]/;

/**
 * Joins pieces into prose segments of at most {@link PROSE_CHUNK_CHARACTERS} characters (the
 * first `firstRoom`): page text is split between words (hard when it has no space), a link or
 * code never. Returns each segment with the actions it holds.
 */
function joinPieces(pieces: readonly Piece[], firstRoom: number): Segment[] {
  const segments: Segment[] = [];
  let text = '';
  let actions: ListedElement[] = [];
  let keys: string[] = [];
  let acts = false;
  let prose = false;
  let room = firstRoom;
  const flush = () => {
    segments.push({ text, actions, keys, acts, prose });
    text = '';
    actions = [];
    keys = [];
    acts = false;
    prose = false;
    room = PROSE_CHUNK_CHARACTERS;
  };
  const hold = (piece: Piece) => {
    if (piece.kind !== 'action') return;
    acts = true;
    if (piece.listed !== undefined) actions.push(...piece.listed);
    if (piece.key !== undefined) keys.push(piece.key);
  };
  for (const piece of pieces) {
    if (piece.kind !== 'action' && WORDY.test(piece.text)) prose = true;
    let glue = text === '' || (piece.kind === 'text' && CLOSING.test(piece.text)) ? '' : ' ';
    const fits = text.length + glue.length + piece.text.length <= room;
    if (fits || (piece.kind !== 'text' && text === '')) {
      text += glue + piece.text;
      hold(piece);
      continue;
    }
    if (piece.kind !== 'text') {
      flush();
      text = piece.text;
      hold(piece);
      continue;
    }
    // Page text fills the segment up to a space and goes on in the next ones.
    let rest = piece.text;
    for (;;) {
      const free = room - text.length - glue.length;
      if (rest.length <= free) {
        text += glue + rest;
        break;
      }
      // Within a segment that already holds text, a word that does not fit goes to the next.
      const cut = text === '' ? Math.max(1, cutPoint(rest, free)) : softCutPoint(rest, free);
      if (cut > 0) text += glue + rest.slice(0, cut).trimEnd();
      rest = rest.slice(cut).trimStart();
      flush();
      glue = '';
      if (rest === '') break;
    }
  }
  if (text !== '' || segments.length === 0) segments.push({ text, actions, keys, acts, prose });
  return segments;
}

/** Where to cut a text to at most `room` characters at a space; 0 when there is none. */
function softCutPoint(text: string, room: number): number {
  if (room <= 0) return 0;
  const space = text.lastIndexOf(' ', room);
  return Math.max(space, 0);
}

/** Where to cut a text to at most `room` characters: at the last space, else at `room`. */
function cutPoint(text: string, room: number): number {
  if (room <= 0) return 0;
  if (text.length <= room) return text.length;
  const space = text.lastIndexOf(' ', room);
  if (space > room / 2) return space;
  // No space near the end: cut at `room`, never between the halves of a surrogate pair.
  const code = text.charCodeAt(room - 1);
  return code >= 0xd800 && code <= 0xdbff ? room - 1 : room;
}

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
