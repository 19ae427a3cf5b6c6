import type { AriaNode } from './aria-tree.js';
import { forEachInSlices, NO_PAUSE, Pace, runSteps, runStepsAsync, type Steps } from './pace.js';
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

/**
 * {@link diffSnapshots} in slices that give the event loop a turn (two trees of 200,000 nodes
 * hold no other session); stops with the signal's reason once it is aborted.
 */
export async function diffSnapshotsAsync(
  before: readonly AriaNode[],
  after: readonly AriaNode[],
  signal?: AbortSignal,
): Promise<SnapshotDelta> {
  const old = await signaturesOfAsync(before, signal);
  const now = await signaturesOfAsync(after, signal);
  const added: string[] = [];
  const changed: string[] = [];
  await forEachInSlices(
    now,
    ([ref, signature]) => {
      const previous = old.get(ref);
      if (!previous) added.push(signature.line);
      else if (previous.content !== signature.content) changed.push(signature.line);
    },
    signal,
  );
  const removed: string[] = [];
  await forEachInSlices(
    old,
    ([ref, signature]) => {
      if (!now.has(ref)) removed.push(signature.line);
    },
    signal,
  );
  return { added, removed, changed };
}

/** Signatures by tree, so a tree compared twice (after one action, before the next) is read once. */
const cache = new WeakMap<readonly AriaNode[], Map<string, Signature>>();
/** Signatures being read in slices, by tree. */
const reading = new WeakMap<readonly AriaNode[], Promise<Map<string, Signature>>>();

/**
 * Starts reading a tree's signatures ahead of {@link diffSnapshots}, in slices, e.g. while the
 * page settles after an action; a later diff of the same tree reuses them. The tree must not
 * change afterwards.
 */
export function prepareDiff(nodes: readonly AriaNode[]): void {
  signaturesOfAsync(nodes).catch(() => undefined);
}

function signaturesOf(nodes: readonly AriaNode[]): Map<string, Signature> {
  let map = cache.get(nodes);
  if (!map) {
    map = runSteps(signatureSteps(nodes, NO_PAUSE));
    cache.set(nodes, map);
  }
  return map;
}

async function signaturesOfAsync(
  nodes: readonly AriaNode[],
  signal?: AbortSignal,
): Promise<Map<string, Signature>> {
  const known = cache.get(nodes);
  if (known) return known;
  let pending = reading.get(nodes);
  if (!pending) {
    const pace = new Pace();
    pending = runStepsAsync(signatureSteps(nodes, pace), pace).then((map) => {
      cache.set(nodes, map);
      return map;
    });
    reading.set(nodes, pending);
    pending.catch(() => reading.delete(nodes));
  }
  signal?.throwIfAborted();
  return pending;
}

/** Whether a delta holds no change. */
export function isEmptyDelta(delta: SnapshotDelta): boolean {
  return delta.added.length === 0 && delta.removed.length === 0 && delta.changed.length === 0;
}

function* signatureSteps(nodes: readonly AriaNode[], pace: Pace): Steps<Map<string, Signature>> {
  const map = new Map<string, Signature>();
  const rootParts: string[] = [];
  for (const node of nodes) yield* visit(node, map, rootParts, pace);
  const rootText = rootParts.join(' | ');
  map.set('(page text)', {
    line: `text outside elements: ${rootText.length > 200 ? `${rootText.slice(0, 200)}…` : rootText}`,
    content: rootParts.join('\n'),
  });
  return map;
}

/** Records a node's signature and returns the text it contributes to its nearest ref ancestor. */
function* visit(
  node: AriaNode,
  map: Map<string, Signature>,
  parentParts: string[],
  pace: Pace,
): Steps<void> {
  if (pace.due()) yield;
  const line = formatNode(node, 120);
  // A link's target is not shown on its line, but a new target is a change.
  const url = node.attributes.find((attribute) => attribute.startsWith('url='));
  const own = url === undefined ? line : `${line} [${url}]`;
  if (node.ref === undefined) {
    parentParts.push(own);
    for (const child of node.children) yield* visit(child, map, parentParts, pace);
    return;
  }
  const parts = [own];
  for (const child of node.children) yield* visit(child, map, parts, pace);
  map.set(node.ref, { line, content: parts.join('\n') });
}
