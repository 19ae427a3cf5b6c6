import type { AriaNode } from './aria-tree.js';
import { formatNode } from './snapshot-render.js';

/** What changed between two snapshots of the same page. */
export interface SnapshotDelta {
  /** Lines of nodes that appeared, in document order (`button "Save" [ref=e9]`). */
  readonly added: readonly string[];
  /** Lines of nodes that disappeared. */
  readonly removed: readonly string[];
  /** New lines of nodes whose role, name, state or own text changed. */
  readonly changed: readonly string[];
}

interface Signature {
  readonly line: string;
  readonly content: string;
}

/**
 * Compares two trees by ref: a ref only in `after` is added, only in `before` removed, in both
 * with different own content (its line plus the text of descendants without refs) changed.
 */
export function diffSnapshots(
  before: readonly AriaNode[],
  after: readonly AriaNode[],
): SnapshotDelta {
  const old = signaturesOf(before);
  const now = signaturesOf(after);
  const added: string[] = [];
  const changed: string[] = [];
  for (const [ref, signature] of now) {
    const previous = old.get(ref);
    if (!previous) added.push(signature.line);
    else if (previous.content !== signature.content) changed.push(signature.line);
  }
  const removed: string[] = [];
  for (const [ref, signature] of old) if (!now.has(ref)) removed.push(signature.line);
  return { added, removed, changed };
}

/** Signatures by tree, so a tree compared twice (after one action, before the next) is read once. */
const cache = new WeakMap<readonly AriaNode[], Map<string, Signature>>();

/**
 * Reads a tree's signatures ahead of {@link diffSnapshots}, e.g. while the page settles after an
 * action; a later diff of the same tree reuses them. The tree must not change afterwards.
 */
export function prepareDiff(nodes: readonly AriaNode[]): void {
  signaturesOf(nodes);
}

function signaturesOf(nodes: readonly AriaNode[]): Map<string, Signature> {
  let map = cache.get(nodes);
  if (!map) {
    map = signatures(nodes);
    cache.set(nodes, map);
  }
  return map;
}

/** Whether a delta holds no change. */
export function isEmptyDelta(delta: SnapshotDelta): boolean {
  return delta.added.length === 0 && delta.removed.length === 0 && delta.changed.length === 0;
}

function signatures(nodes: readonly AriaNode[]): Map<string, Signature> {
  const map = new Map<string, Signature>();
  const rootParts: string[] = [];
  for (const node of nodes) visit(node, map, rootParts);
  const rootText = rootParts.join(' | ');
  map.set('(page text)', {
    line: `text outside elements: ${rootText.length > 200 ? `${rootText.slice(0, 200)}…` : rootText}`,
    content: rootParts.join('\n'),
  });
  return map;
}

/** Records a node's signature and returns the text it contributes to its nearest ref ancestor. */
function visit(node: AriaNode, map: Map<string, Signature>, parentParts: string[]): void {
  const line = formatNode(node, 120);
  // A link's target is not shown on its line, but a new target is a change.
  const url = node.attributes.find((attribute) => attribute.startsWith('url='));
  const own = url === undefined ? line : `${line} [${url}]`;
  if (node.ref === undefined) {
    parentParts.push(own);
    for (const child of node.children) visit(child, map, parentParts);
    return;
  }
  const parts = [own];
  for (const child of node.children) visit(child, map, parts);
  map.set(node.ref, { line, content: parts.join('\n') });
}
