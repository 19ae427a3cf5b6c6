import {
  flattenNodes,
  isActionable,
  isEditable,
  isInformative,
  isKeyboardWindow,
  type UiNode,
} from './ui-hierarchy.js';

/** Options for {@link renderUiTree}. */
export interface RenderUiTreeOptions {
  /** Append `@[l,t][r,b]` bounds to every line. Default false. */
  bounds?: boolean;
  /** Longest text kept per label, in characters. Default 80. */
  maxLabel?: number;
}

function shortClass(className: string): string {
  return className.slice(className.lastIndexOf('.') + 1) || 'View';
}

function shortId(resourceId: string): string {
  const slash = resourceId.indexOf(':id/');
  return slash >= 0 ? resourceId.slice(slash + 4) : resourceId;
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * One line describing a node: `[ref] Class "text" desc="…" #id flags`. A node the model cannot
 * act on shows only what it reads: a TextView is just its quoted text, and no resource-id.
 */
function describe(node: UiNode, options: Required<RenderUiTreeOptions>): string {
  const actionable = isActionable(node);
  const parts = [`[${node.ref}]`];
  const name = shortClass(node.className);
  if (actionable || name !== 'TextView' || !node.text) parts.push(name);
  const label = node.password ? (node.text ? '••••' : '') : node.text;
  if (label) parts.push(JSON.stringify(clip(label, options.maxLabel)));
  if (node.contentDesc && node.contentDesc !== node.text)
    parts.push(`desc=${JSON.stringify(clip(node.contentDesc, options.maxLabel))}`);
  if (node.resourceId && actionable) parts.push(`#${shortId(node.resourceId)}`);
  if (isEditable(node)) parts.push('editable');
  if (node.clickable) parts.push('clickable');
  if (node.longClickable && !node.clickable) parts.push('long-clickable');
  if (node.scrollable) parts.push('scrollable');
  if (node.checkable) parts.push(node.checked ? 'checked' : 'unchecked');
  if (node.focused) parts.push('focused');
  if (node.selected) parts.push('selected');
  if (!node.enabled) parts.push('disabled');
  if (node.password) parts.push('password');
  if (options.bounds) {
    const [left, top, right, bottom] = node.bounds;
    parts.push(`@[${left},${top}][${right},${bottom}]`);
  }
  return parts.join(' ');
}

/** One line of a rendered tree, with what a budget needs to know about it. */
export interface UiTreeLine {
  /** The line as the text shows it, indentation included. */
  readonly text: string;
  /** Ref of the node the line describes (the keyboard line: the keyboard window's). */
  readonly ref: string;
  /** Whether the node is actionable (the folded keyboard line is not). */
  readonly actionable: boolean;
  /**
   * A short form for a list of refs: `[ref] Class "label"`, the label (its own text, else the
   * first text inside) clipped to 30 characters.
   */
  readonly compact: string;
}

/** The first text of a node's descendants, depth first (stops at the first one found). */
function firstTextInside(node: UiNode): string | undefined {
  for (const child of node.children) {
    if (child.text.trim() !== '' && !child.password) return child.text;
    const inner = firstTextInside(child);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

/** `[ref] Class "label"`; a node without a label of its own (a list row) takes its first text inside. */
function compactOf(node: UiNode): string {
  const label = node.password
    ? ''
    : node.text || node.contentDesc || firstTextInside(node) || shortId(node.resourceId);
  return `[${node.ref}] ${shortClass(node.className)}${label ? ` ${JSON.stringify(clip(label, 30))}` : ''}`;
}

/** What {@link renderUiTree} produced. */
export interface RenderedUiTree {
  /** The compact text. */
  readonly text: string;
  /** The lines of `text`, in order. */
  readonly lines: readonly UiTreeLine[];
  /** How many actionable nodes the hierarchy has, and how many the text shows (always equal). */
  readonly actionableNodes: number;
  readonly shownNodes: number;
  /** Whether a keyboard window was folded to one line. */
  readonly keyboardShown: boolean;
}

/**
 * Renders a hierarchy as compact indented text, one line per kept node with its ref. Keeps every
 * actionable node (clickable, long-clickable, scrollable, checkable, editable) even without text,
 * described by class, content-desc and short resource-id (`#send`), and every node with text or
 * a description; drops empty layout wrappers, lifting their children. The keyboard window is
 * folded to one line.
 */
export function renderUiTree(
  roots: readonly UiNode[],
  options: RenderUiTreeOptions = {},
): RenderedUiTree {
  const resolved: Required<RenderUiTreeOptions> = {
    bounds: options.bounds ?? false,
    maxLabel: options.maxLabel ?? 80,
  };
  const lines: UiTreeLine[] = [];
  let shown = 0;
  let keyboardShown = false;
  let actionable = 0;
  const walk = (node: UiNode, depth: number) => {
    if (isActionable(node)) actionable++;
    let childDepth = depth;
    if (isInformative(node)) {
      lines.push({
        text: `${'  '.repeat(depth)}${describe(node, resolved)}`,
        ref: node.ref,
        actionable: isActionable(node),
        compact: compactOf(node),
      });
      shown++;
      childDepth = depth + 1;
    }
    for (const child of node.children) walk(child, childDepth);
  };
  for (const root of roots) {
    if (isKeyboardWindow(root)) {
      keyboardShown = true;
      const keys = flattenNodes([root]).filter((node) => node.clickable).length;
      const text = `[${root.ref}] keyboard shown (${root.packageName}, ${keys} keys folded; use input_text to type)`;
      lines.push({ text, ref: root.ref, actionable: false, compact: text });
      continue;
    }
    walk(root, 0);
  }
  return {
    text: lines.map((line) => line.text).join('\n'),
    lines,
    actionableNodes: actionable,
    shownNodes: shown,
    keyboardShown,
  };
}
