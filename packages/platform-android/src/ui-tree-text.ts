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
 * Classes that say nothing a label and the ref do not (layouts, plain views, text views, buttons
 * and images, which a ref already says can be tapped): a line with a label leaves them out.
 */
const PLAIN_CLASSES = new Set([
  'View',
  'ViewGroup',
  'FrameLayout',
  'LinearLayout',
  'RelativeLayout',
  'ConstraintLayout',
  'CoordinatorLayout',
  'CardView',
  'MaterialCardView',
  'TextView',
  'AppCompatTextView',
  'Button',
  'AppCompatButton',
  'MaterialButton',
  'ImageButton',
  'AppCompatImageButton',
  'ImageView',
  'AppCompatImageView',
  'MaterialTextView',
  'ComposeView',
]);

/** Classes of containers that scroll (left out when the node says `scrollable`). */
const SCROLLING_CLASS = /Scroll|Recycler|ListView|GridView|Pager/;

/** Most labels of inner text a node the model can act on shows on its own line. */
const MAX_INNER_LABELS = 4;

/** The quoted labels of a node: its text, and its description when it differs. */
function ownLabels(node: UiNode, maxLabel: number): string[] {
  const labels: string[] = [];
  const text = node.password ? (node.text ? '••••' : '') : node.text;
  if (text) labels.push(JSON.stringify(clip(text, maxLabel)));
  if (node.contentDesc && node.contentDesc !== node.text)
    labels.push(`${text ? 'desc=' : ''}${JSON.stringify(clip(node.contentDesc, maxLabel))}`);
  return labels;
}

/** Whether any node below this one is actionable (then its descendants keep their own lines). */
function hasActionableInside(node: UiNode): boolean {
  return node.children.some((child) => isActionable(child) || hasActionableInside(child));
}

/** The labels of the informative nodes below a node, depth first, without repeats. */
function innerLabels(node: UiNode, seen: Set<string>, maxLabel: number, into: string[]): void {
  for (const child of node.children) {
    if (into.length >= MAX_INNER_LABELS) return;
    for (const label of ownLabels(child, maxLabel)) {
      const bare = label.startsWith('desc=') ? label.slice(5) : label;
      if (seen.has(bare) || into.length >= MAX_INNER_LABELS) continue;
      seen.add(bare);
      into.push(bare);
    }
    innerLabels(child, seen, maxLabel, into);
  }
}

/**
 * One line describing a node. A node the model can act on: `[ref] Class "text" desc="…" #id
 * flags`, where the class is left out when it is a plain layout or text view and a label says
 * what the node is, `#id` (short resource-id) shows only on a node without a label, and a tap is
 * implied (flags name the rest: editable, scrollable, checked, long-clickable, focusable …). When
 * nothing below it can be acted on, the labels of the text below follow on the same line and
 * those nodes get no line of their own. A node that only shows text is its quoted text (its class
 * when that says more), without a ref: nothing targets it.
 */
function describe(
  node: UiNode,
  options: Required<RenderUiTreeOptions>,
): { text: string; folded: boolean; hoisted?: UiNode } {
  const actionable = isActionable(node);
  const parts: string[] = actionable ? [`[${node.ref}]`] : [];
  const labels = ownLabels(node, options.maxLabel);
  let folded = false;
  let hoisted: UiNode | undefined;
  if (actionable && !hasActionableInside(node)) {
    const seen = new Set(
      labels.map((label) => (label.startsWith('desc=') ? label.slice(5) : label)),
    );
    const inner: string[] = [];
    innerLabels(node, seen, options.maxLabel, inner);
    labels.push(...inner);
    folded = true;
  } else if (actionable && labels.length === 0 && !node.scrollable) {
    // A row with controls inside is labelled by its first text, which then has no line of its own.
    const first = firstInformative(node);
    if (first !== undefined && !isActionable(first)) {
      labels.push(
        ...ownLabels(first, options.maxLabel).map((label) => label.replace(/^desc=/, '')),
      );
      hoisted = first;
    }
  }
  const name = shortClass(node.className);
  const id =
    node.resourceId && actionable && labels.length === 0 ? `#${shortId(node.resourceId)}` : '';
  // A container that scrolls is said by its flag; its class (ScrollView, RecyclerView …) adds nothing.
  const plain = PLAIN_CLASSES.has(name) || (node.scrollable && SCROLLING_CLASS.test(name));
  if (!plain || (labels.length === 0 && id === '' && !node.scrollable)) parts.push(name);
  parts.push(...labels);
  if (id) parts.push(id);
  if (isEditable(node)) parts.push('editable');
  if (node.longClickable && !node.clickable) parts.push('long-clickable');
  if (node.scrollable) parts.push('scrollable');
  if (node.checkable) parts.push(node.checked ? 'checked' : 'unchecked');
  if (
    actionable &&
    !node.clickable &&
    !node.longClickable &&
    !node.scrollable &&
    !node.checkable &&
    !isEditable(node)
  )
    parts.push('focusable');
  if (node.focused) parts.push('focused');
  if (node.selected) parts.push('selected');
  if (!node.enabled) parts.push('disabled');
  if (node.password) parts.push('password');
  if (options.bounds) {
    const [left, top, right, bottom] = node.bounds;
    parts.push(`@[${left},${top}][${right},${bottom}]`);
  }
  return { text: parts.join(' '), folded, ...(hoisted ? { hoisted } : {}) };
}

/** The first node below this one that gets a line of its own (through empty wrappers). */
function firstInformative(node: UiNode): UiNode | undefined {
  for (const child of node.children) {
    if (isInformative(child)) return child;
    const inner = firstInformative(child);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

/** One line of a rendered tree, with what a budget needs to know about it. */
export interface UiTreeLine {
  /** The line as the text shows it, indentation included. */
  readonly text: string;
  /** Ref of the node the line describes; '' when nothing can target it (a text, the keyboard). */
  readonly ref: string;
  /** Identity of the node the line describes (its `key`), on every line: what pages compare. */
  readonly key: string;
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
  const name = shortClass(node.className);
  const shown = label ? JSON.stringify(clip(label, 30)) : '';
  return `[${node.ref}] ${PLAIN_CLASSES.has(name) && shown ? shown : `${name}${shown ? ` ${shown}` : ''}`}`;
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
 * Renders a hierarchy as compact indented text, one line per kept node. Keeps every actionable
 * node (clickable, long-clickable, scrollable, checkable, editable, focusable leaves) with its ref,
 * even without text (then described by class and short resource-id, `#send`), and every node with
 * text or a description; drops empty layout wrappers, lifting their children. An actionable node
 * with nothing actionable below it carries the text below on its own line. The keyboard window is
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
  const hoisted = new Set<UiNode>();
  const walk = (node: UiNode, depth: number) => {
    if (isActionable(node)) actionable++;
    let childDepth = depth;
    if (hoisted.has(node)) {
      // Its text is on the line of the row it labels.
      shown++;
    } else if (isInformative(node)) {
      const line = describe(node, resolved);
      if (line.hoisted) hoisted.add(line.hoisted);
      lines.push({
        text: `${'  '.repeat(depth)}${line.text}`,
        ref: node.ref,
        key: node.key,
        actionable: isActionable(node),
        compact: compactOf(node),
      });
      shown++;
      childDepth = depth + 1;
      // The text below was folded into this line; nothing below can be acted on.
      if (line.folded) {
        countShown(node);
        return;
      }
    }
    for (const child of node.children) walk(child, childDepth);
  };
  const countShown = (node: UiNode) => {
    for (const child of node.children) {
      if (isInformative(child)) shown++;
      countShown(child);
    }
  };
  for (const root of roots) {
    if (isKeyboardWindow(root)) {
      keyboardShown = true;
      const keys = flattenNodes([root]).filter((node) => node.clickable).length;
      const text = `keyboard shown (${root.packageName}, ${keys} keys folded; use input_text to type)`;
      lines.push({ text, ref: '', key: root.key, actionable: false, compact: text });
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
