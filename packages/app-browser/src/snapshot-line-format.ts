// How one node reads as a line: its role, name, attributes and ref, link targets, and the short
// lines of the interactive elements listed further down.
import { type AriaNode, isInteractive } from './aria-tree.js';

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
export const QUIET_ATTRIBUTES = new Set(['cursor=pointer']);

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
export function isPlainParagraph(node: AriaNode | undefined): boolean {
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
export function headOf(node: AriaNode, options: LineOptions): string {
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
 * Page text inside a prose line: `](` is shown as `] (`, so no page text reads like an inline
 * link of the tools (`[label](e12)`); the tools' own links are the only `](` on a line.
 */
export function proseText(text: string): string {
  return text.replaceAll('](', '] (');
}

/**
 * The head of a heading's line in Markdown (`## Title` for `heading "Title" [level=2]`), when the
 * heading shows nothing else: no ref, no state besides its level.
 */
export function markdownHeading(node: AriaNode, options: LineOptions): string | undefined {
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
export function linkKey(node: AriaNode, label: string): string | undefined {
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
export function listedElements(
  node: AriaNode,
  options: LineOptions,
  label?: string,
): ListedElement[] {
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
