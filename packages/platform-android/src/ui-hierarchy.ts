import { createHash, type Hash } from 'node:crypto';
import { CleaningTally } from '@toolsys/core-tool-registry/text';

/** One node of a `uiautomator dump` hierarchy. */
export interface UiNode {
  readonly className: string;
  readonly text: string;
  readonly resourceId: string;
  readonly contentDesc: string;
  readonly packageName: string;
  /** [left, top, right, bottom]. */
  readonly bounds: readonly [number, number, number, number];
  readonly clickable: boolean;
  readonly longClickable: boolean;
  readonly focusable: boolean;
  readonly focused: boolean;
  readonly scrollable: boolean;
  readonly checkable: boolean;
  readonly checked: boolean;
  readonly enabled: boolean;
  readonly selected: boolean;
  readonly password: boolean;
  readonly children: UiNode[];
  /**
   * Short stable reference such as `e048` on a node the model can act on, '' on any other node
   * (see {@link assignRefs}); set after parsing.
   */
  ref: string;
  /**
   * Identity of the node on its screen, on every node: 16 hex digits of a hash of its identity
   * path (see {@link assignRefs}). Equal keys in two dumps mean the same node; set after parsing.
   */
  key: string;
}

const NAMED_ENTITIES: Record<string, string> = {
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  amp: '&',
};

/** A character reference's text; one that names no code point becomes U+FFFD. */
function fromCodePoint(code: number): string {
  return Number.isInteger(code) && code >= 0 && code <= 0x10ffff
    ? String.fromCodePoint(code)
    : '\uFFFD';
}

/** Resolves the five XML entities and numeric character references, in one pass. */
function unescapeXml(value: string): string {
  if (!value.includes('&')) return value;
  return value.replaceAll(
    /&(?:#(\d{1,10})|#x([0-9a-fA-F]{1,8})|(lt|gt|quot|apos|amp));/g,
    (whole, decimal, hex, name) => {
      if (decimal !== undefined) return fromCodePoint(Number(decimal));
      if (hex !== undefined) return fromCodePoint(Number.parseInt(hex, 16));
      return NAMED_ENTITIES[name as string] ?? whole;
    },
  );
}

/** Thrown when the text is not a uiautomator hierarchy. */
export class UiHierarchyParseError extends Error {
  override readonly name = 'UiHierarchyParseError';
}

/** Bounds of {@link readUiHierarchy}: what a real screen never reaches, so a hostile dump stops there. */
export interface UiHierarchyLimits {
  /** Deepest nesting kept (deeper nodes are skipped with their subtrees). Default 200. */
  readonly maxDepth?: number;
  /** Most nodes kept (later ones are skipped). Default 20 000. */
  readonly maxNodes?: number;
}

/** What {@link readUiHierarchy} read. */
export interface UiHierarchy {
  /** The top-level nodes (one per window), each with a stable `ref`. */
  readonly roots: UiNode[];
  /** Nodes skipped past the depth or node bound (0 on a real screen). */
  readonly skippedNodes: number;
  /** Invisible and control characters removed from texts and labels (see `cleanUntrustedText`). */
  readonly invisibleRemoved: number;
}

/** Whether a UTF-16 code unit may be part of an XML name here: letters, digits, `_ . $ : -`. */
function isNameCode(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 46 ||
    code === 36 ||
    code === 58 ||
    code === 45
  );
}

/** Whether a UTF-16 code unit is XML white space. */
function isSpaceCode(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

/** Reads an XML name starting at `index`; returns its end. */
function nameEnd(xml: string, index: number): number {
  let end = index;
  while (end < xml.length && isNameCode(xml.charCodeAt(end))) end++;
  return end;
}

/**
 * Reads the XML `uiautomator dump` writes (`<hierarchy><node …/>…</hierarchy>`) with a scanner
 * that only moves forward, so any input, however malformed, takes linear time. Text before
 * `<hierarchy` and after `</hierarchy>` (the "UI hierchary dumped to" line) is ignored; a dump
 * cut short ends where it stops. `uiautomator dump` names every element `node`; the UiAutomator2
 * server's page source names each after its class; both carry the same attributes. Nesting and
 * node count are bounded (see {@link UiHierarchyLimits}).
 */
export function readUiHierarchy(xml: string, limits: UiHierarchyLimits = {}): UiHierarchy {
  const reader = hierarchyReader(xml, limits);
  reader.read(Number.POSITIVE_INFINITY);
  return reader.result();
}

/** Longest the slices of {@link readUiHierarchyInSlices} hold the event loop, in ms. */
const SLICE_MS = 8;

/**
 * {@link readUiHierarchy} in slices of a few milliseconds with the event loop served between
 * them: a dump of a megabyte (tens to hundreds of ms in one pass on a busy machine) never holds
 * up the other sessions. Same result, same limits.
 */
export async function readUiHierarchyInSlices(
  xml: string,
  limits: UiHierarchyLimits = {},
): Promise<UiHierarchy> {
  const reader = hierarchyReader(xml, limits);
  while (!reader.read(performance.now() + SLICE_MS)) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return reader.result();
}

/**
 * The scanner of {@link readUiHierarchy}, resumable: `read(deadline)` moves on until the end or
 * until `performance.now()` passes the deadline (checked every 64 tags), and says whether it is
 * done; `result()` then gives the hierarchy.
 */
function hierarchyReader(
  xml: string,
  limits: UiHierarchyLimits,
): { read(deadline: number): boolean; result(): UiHierarchy } {
  const maxDepth = limits.maxDepth ?? 200;
  const maxNodes = limits.maxNodes ?? 20_000;
  const start = xml.indexOf('<hierarchy');
  if (start < 0)
    throw new UiHierarchyParseError('not a uiautomator hierarchy (no <hierarchy> element)');
  const closing = xml.lastIndexOf('</hierarchy>');
  const end = closing > start ? closing : xml.length;
  const roots: UiNode[] = [];
  // One entry per open element: the node, or undefined for <hierarchy> and skipped elements.
  const stack: (UiNode | undefined)[] = [];
  let kept = 0;
  let skipped = 0;
  const tally = new CleaningTally();
  let index = start;
  let done = false;
  let tags = 0;
  const read = (deadline: number): boolean => {
    while (!done) {
      if (++tags % 64 === 0 && performance.now() > deadline) return false;
      done = step();
    }
    return true;
  };
  /** Reads one tag; true at the end. */
  const step = (): boolean => {
    if (index >= end) return true;
    const open = xml.indexOf('<', index);
    if (open < 0 || open >= end) return true;
    const next = xml[open + 1];
    if (next === '/') {
      const close = xml.indexOf('>', open);
      if (close < 0) return true;
      stack.pop();
      index = close + 1;
      return false;
    }
    if (next === '?' || next === '!') {
      const terminator = xml.startsWith('<!--', open) ? '-->' : '>';
      const close = xml.indexOf(terminator, open + 2);
      if (close < 0) return true;
      index = close + terminator.length;
      return false;
    }
    const afterName = nameEnd(xml, open + 1);
    if (afterName === open + 1) {
      index = open + 1;
      return false;
    }
    const tagName = xml.slice(open + 1, afterName);
    // Attributes up to the first `>` outside quotes; anything else inside the tag is skipped.
    const attributes = new Map<string, string>();
    let position = afterName;
    let selfClosing = false;
    let complete = false;
    while (position < end) {
      const code = xml.charCodeAt(position);
      if (code === 62 /* > */) {
        complete = true;
        position++;
        break;
      }
      if (code === 47 /* / */ && xml.charCodeAt(position + 1) === 62) {
        selfClosing = true;
        complete = true;
        position += 2;
        break;
      }
      if (isSpaceCode(code)) {
        position++;
        continue;
      }
      const attributeEnd = nameEnd(xml, position);
      if (attributeEnd === position) {
        position++;
        continue;
      }
      const name = xml.slice(position, attributeEnd);
      position = attributeEnd;
      while (position < end && isSpaceCode(xml.charCodeAt(position))) position++;
      if (xml[position] !== '=') continue;
      position++;
      while (position < end && isSpaceCode(xml.charCodeAt(position))) position++;
      const quote = xml[position];
      if (quote !== '"' && quote !== "'") continue;
      const valueEnd = xml.indexOf(quote, position + 1);
      if (valueEnd < 0 || valueEnd >= end) {
        position = end;
        break;
      }
      attributes.set(name, unescapeXml(xml.slice(position + 1, valueEnd)));
      position = valueEnd + 1;
    }
    index = position;
    if (!complete) return true;
    if (tagName === 'hierarchy') {
      if (!selfClosing) stack.push(undefined);
      return false;
    }
    const depth = stack.length;
    const parent = stack.at(-1);
    // A node inside a skipped one, too deep, or past the count is skipped with its subtree.
    const skip = kept >= maxNodes || depth > maxDepth || (depth > 1 && parent === undefined);
    if (skip) {
      skipped++;
      if (!selfClosing) stack.push(undefined);
      return false;
    }
    const node = nodeOf(attributes, tally);
    kept++;
    if (parent) parent.children.push(node);
    else roots.push(node);
    if (!selfClosing) stack.push(node);
    return false;
  };
  return {
    read,
    result() {
      assignRefs(roots);
      return { roots, skippedNodes: skipped, invisibleRemoved: tally.invisibleRemoved };
    },
  };
}

/**
 * Parses the XML `uiautomator dump` writes; see {@link readUiHierarchy}. Returns the top-level
 * nodes (one per window), each with a stable `ref`.
 */
export function parseUiHierarchy(xml: string): UiNode[] {
  return readUiHierarchy(xml).roots;
}

const BOUNDS = /\[(-?\d{1,9}),(-?\d{1,9})\]\[(-?\d{1,9}),(-?\d{1,9})\]/;

/**
 * A node from its attributes. What the device shows as text is cleaned of characters a person
 * cannot see (tag characters, bidi overrides, zero-width, controls), so every tool reads, matches
 * and prints the text a person sees.
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function nodeOf(attributes: ReadonlyMap<string, string>, tally: CleaningTally): UiNode {
  const bounds = BOUNDS.exec(attributes.get('bounds') ?? '');
  const flag = (name: string) => attributes.get(name) === 'true';
  const read = (name: string) => {
    const value = attributes.get(name) ?? '';
    // Plain printable ASCII has nothing to clean (the common case, by far).
    return PRINTABLE_ASCII.test(value) ? value : tally.clean(value);
  };
  return {
    className: read('class'),
    text: read('text'),
    resourceId: read('resource-id'),
    contentDesc: read('content-desc'),
    packageName: read('package'),
    bounds: bounds
      ? [Number(bounds[1]), Number(bounds[2]), Number(bounds[3]), Number(bounds[4])]
      : [0, 0, 0, 0],
    clickable: flag('clickable'),
    longClickable: flag('long-clickable'),
    focusable: flag('focusable'),
    focused: flag('focused'),
    scrollable: flag('scrollable'),
    checkable: flag('checkable'),
    checked: flag('checked'),
    enabled: attributes.get('enabled') !== 'false',
    selected: flag('selected'),
    password: flag('password'),
    children: [],
    ref: '',
    key: '',
  };
}

/** Whether a node takes text input. */
export function isEditable(node: UiNode): boolean {
  return /EditText$|AutoCompleteTextView$/.test(node.className);
}

/** Whether the model can act on a node (tap, type, scroll, toggle). */
export function isActionable(node: UiNode): boolean {
  return (
    node.clickable ||
    node.longClickable ||
    node.scrollable ||
    node.checkable ||
    isEditable(node) ||
    (node.focusable && node.children.length === 0)
  );
}

/** Whether a node carries anything the model should see (ui_dump shows exactly these). */
export function isInformative(node: UiNode): boolean {
  return isActionable(node) || node.text.trim() !== '' || node.contentDesc.trim() !== '';
}

/** Refs of the first tier: `e` and three digits, two o200k tokens (`e`, `048`). */
const SHORT_REFS = 1000;
/** Refs of the second tier, for a short ref taken: `e1000`-`e9999`, three tokens. */
const LONG_REFS = 9000;
/** Second-tier candidates a node tries (from its own hash) before the sequential fallback. */
const LONG_TRIES = 6;

/** A node's label for its identity: its own text or description (none for an editable field, whose text changes). */
function ownLabel(node: UiNode): string {
  return isEditable(node) ? '' : node.text || node.contentDesc;
}

/** The first own label inside a node, depth first (a row of a list is known by its first text). */
function firstLabelInside(node: UiNode): string {
  for (const child of node.children) {
    const label = ownLabel(child) || firstLabelInside(child);
    if (label !== '') return label;
  }
  return '';
}

/**
 * The key that identifies a node among its siblings: class, resource-id and label. A node the
 * model can act on, or a row of a scrollable list, without a label of its own is known by the
 * first label inside it (a scrolling container is not: its content moves), so list rows keep their identity when the list scrolls (their position
 * among siblings changes, their content does not). Other containers use their own label only, so
 * a changing text somewhere below (a clock) cannot change the identity of the whole screen.
 */
function identity(node: UiNode, parent: UiNode | undefined): string {
  let label = ownLabel(node);
  // A scrolling container is not known by its content: that is what scrolls.
  if (label === '' && !node.scrollable && (isActionable(node) || parent?.scrollable === true))
    label = firstLabelInside(node);
  return `${node.className}|${node.resourceId}|${label}`;
}

/**
 * Gives every node a `key` (a hash of its identity path from the root: the identity of each
 * ancestor and of the node, each with its ordinal among same-identity siblings) and every node the
 * model can act on a short `ref`. Bounds are not part of either, so scrolling or a keyboard moving
 * the layout keeps them; a node on another screen, or renamed, gets another. Both depend on nothing
 * but the screen, so they are the same in every process, after a restart, and through both UI
 * backends. The path is hashed incrementally (a copy of the parent's hash state), so the work is
 * linear in the size of the tree whatever its depth.
 *
 * Refs: each actionable node (the keyboard's keys excepted) wants `e` and three digits from its
 * key (`e048`, two tokens); when two want the same one, the node with the smaller key keeps it and
 * the other takes its next candidate, `e` and four digits from its key (`e4821`, three tokens),
 * and so on. Claims go in the order of the keys, not of the tree, so a node appearing or going
 * (a list scrolled) moves no ref but one that collides with it.
 */
export function assignRefs(roots: UiNode[]): void {
  const claimants: { node: UiNode; digest: Buffer }[] = [];
  const walk = (
    nodes: UiNode[],
    parent: UiNode | undefined,
    parentPath: Hash,
    inKeyboard: boolean,
  ) => {
    const seen = new Map<string, number>();
    for (const node of nodes) {
      const key = identity(node, parent);
      const ordinal = seen.get(key) ?? 0;
      seen.set(key, ordinal + 1);
      const path = parentPath.copy().update(`/${key}#${ordinal}`);
      const digest = path.copy().digest();
      node.key = digest.toString('hex', 0, 8);
      node.ref = '';
      const keyboard = inKeyboard || (parent === undefined && isKeyboardWindow(node));
      if (!keyboard && isActionable(node)) claimants.push({ node, digest });
      walk(node.children, node, path, keyboard);
    }
  };
  walk(roots, undefined, createHash('sha1'), false);
  claimants.sort((a, b) => (a.node.key < b.node.key ? -1 : a.node.key > b.node.key ? 1 : 0));
  const used = new Set<string>();
  // Past both tiers (a hostile dump of thousands of actionable nodes) refs are handed out in order.
  let next = SHORT_REFS + LONG_REFS;
  for (const { node, digest } of claimants) {
    let ref = `e${String(digest.readUInt32BE(8) % SHORT_REFS).padStart(3, '0')}`;
    for (let attempt = 0; used.has(ref) && attempt < LONG_TRIES; attempt++)
      ref = `e${SHORT_REFS + (digest.readUInt16BE(12 + attempt) % LONG_REFS)}`;
    if (used.has(ref)) ref = `e${next++}`;
    used.add(ref);
    node.ref = ref;
  }
}

/** Every node, depth first. */
export function flattenNodes(roots: readonly UiNode[]): UiNode[] {
  const out: UiNode[] = [];
  const walk = (nodes: readonly UiNode[]) => {
    for (const node of nodes) {
      out.push(node);
      walk(node.children);
    }
  };
  walk(roots);
  return out;
}

/** Whether a top-level node is the soft keyboard window. */
export function isKeyboardWindow(node: UiNode): boolean {
  return (
    /inputmethod|keyboard|\.ime\b|adbkeyboard/i.test(node.packageName) ||
    /keyboard/i.test(node.resourceId)
  );
}

/** The centre of a node's bounds. */
export function centerOf(node: UiNode): { x: number; y: number } {
  const [left, top, right, bottom] = node.bounds;
  return { x: Math.round((left + right) / 2), y: Math.round((top + bottom) / 2) };
}
