import { isActionable, isEditable, type UiNode } from './ui-hierarchy.js';

/** Most labels a context keeps (a dialog has a title, a message and a few buttons). */
const MAX_CONTEXT_LABELS = 24;
/** Longest label kept, in characters. */
const MAX_LABEL_LENGTH = 300;

/** The texts around a node that a ref leaves out (see {@link targetContext}). */
export interface TargetContext {
  /** The group's labels in screen order, the node's own subtree left out. */
  readonly labels: readonly string[];
  /** The first of them that nothing can act on (a dialog's message), if any. */
  readonly headline?: string;
}

/**
 * The texts around a node that say what acting on it means: the labels of its nearest enclosing
 * group that holds a text nothing can act on (a dialog's title and message beside its OK button,
 * a row's title beside its Delete button), in screen order, the node's own subtree left out. A
 * node's ref is its own identity (class, id, label, position in the tree) and leaves these out:
 * the app can swap "Save your draft?" for "Factory reset: erase ALL data?" and keep the OK
 * button's ref. The walk stops below a scrolling container, and other scrolling containers are
 * left out (their content moves by design); no labels when no such group exists. Editable fields are left out (their text is the user's
 * input). Undefined when the node is not in the tree.
 */
export function targetContext(roots: readonly UiNode[], target: UiNode): TargetContext | undefined {
  const path = pathTo(roots, target);
  if (path === undefined) return undefined;
  for (let index = path.length - 2; index >= 0; index--) {
    const group = path[index] as UiNode;
    if (group.scrollable) break;
    const labels: { text: string; actionable: boolean }[] = [];
    collectLabels(group, target, labels);
    const headline = labels.find((label) => !label.actionable);
    if (headline) return { labels: labels.map((label) => label.text), headline: headline.text };
  }
  return { labels: [] };
}

/** Whether two contexts read the same. */
export function sameContext(a: TargetContext, b: TargetContext): boolean {
  return a.labels.length === b.labels.length && a.labels.every((label, i) => label === b.labels[i]);
}

/** The nodes from a root down to `target` (both included), found by identity. */
function pathTo(roots: readonly UiNode[], target: UiNode): UiNode[] | undefined {
  const path: UiNode[] = [];
  const walk = (nodes: readonly UiNode[]): boolean => {
    for (const node of nodes) {
      path.push(node);
      if (node === target || walk(node.children)) return true;
      path.pop();
    }
    return false;
  };
  return walk(roots) ? path : undefined;
}

function collectLabels(
  node: UiNode,
  target: UiNode,
  labels: { text: string; actionable: boolean }[],
): void {
  for (const child of node.children) {
    if (labels.length >= MAX_CONTEXT_LABELS) return;
    // A list's rows come and go by design (new messages, scrolling): not what a tap means.
    if (child === target || child.scrollable) continue;
    const text = isEditable(child) ? '' : (child.text || child.contentDesc).trim();
    if (text !== '') {
      labels.push({ text: text.slice(0, MAX_LABEL_LENGTH), actionable: isActionable(child) });
    }
    collectLabels(child, target, labels);
  }
}
