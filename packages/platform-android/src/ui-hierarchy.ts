import { createHash } from 'node:crypto';

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
  /** Stable reference such as `e048213` (see {@link assignRefs}); set after parsing. */
  ref: string;
}

function unescapeXml(value: string): string {
  return value
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replaceAll(/&#x([0-9a-fA-F]+);/g, (_, code: string) =>
      String.fromCodePoint(Number.parseInt(code, 16)),
    )
    .replaceAll('&amp;', '&');
}

/** Thrown when the text is not a uiautomator hierarchy. */
export class UiHierarchyParseError extends Error {
  override readonly name = 'UiHierarchyParseError';
}

/**
 * Parses the XML `uiautomator dump` writes (`<hierarchy><node …/>…</hierarchy>`). Text before the
 * XML declaration and after `</hierarchy>` (the "UI hierchary dumped to" line) is ignored.
 * Returns the top-level nodes (one per window), each with a stable `ref`.
 */
export function parseUiHierarchy(xml: string): UiNode[] {
  const start = xml.indexOf('<hierarchy');
  const end = xml.lastIndexOf('</hierarchy>');
  if (start < 0 || end < 0)
    throw new UiHierarchyParseError('not a uiautomator hierarchy (no <hierarchy> element)');
  const body = xml.slice(start, end);
  const roots: UiNode[] = [];
  const stack: UiNode[] = [];
  // `uiautomator dump` names every element `node`; the UiAutomator2 server's page source names
  // each after its class. Both carry the same attributes.
  const tag = /<([\w.$]+)\b([^>]*?)(\/?)>|<\/([\w.$]+)>/g;
  for (let match = tag.exec(body); match; match = tag.exec(body)) {
    if (match[4] !== undefined) {
      if (match[4] !== 'hierarchy') stack.pop();
      continue;
    }
    if (match[1] === 'hierarchy') continue;
    const attributes = new Map<string, string>();
    for (const attribute of (match[2] as string).matchAll(/([\w-]+)="([^"]*)"/g)) {
      attributes.set(attribute[1] as string, unescapeXml(attribute[2] as string));
    }
    const bounds = /\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]/.exec(attributes.get('bounds') ?? '');
    const flag = (name: string) => attributes.get(name) === 'true';
    const node: UiNode = {
      className: attributes.get('class') ?? '',
      text: attributes.get('text') ?? '',
      resourceId: attributes.get('resource-id') ?? '',
      contentDesc: attributes.get('content-desc') ?? '',
      packageName: attributes.get('package') ?? '',
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
    };
    const parent = stack.at(-1);
    if (parent) parent.children.push(node);
    else roots.push(node);
    if (match[3] !== '/') stack.push(node);
  }
  assignRefs(roots);
  return roots;
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

/** The key that identifies a node among its siblings: class, resource-id, and label (not for editable fields, whose text changes). */
function identity(node: UiNode): string {
  const label = isEditable(node) ? '' : node.text || node.contentDesc;
  return `${node.className}|${node.resourceId}|${label}`;
}

/** A ref for an identity path: `e` and six decimal digits (two tokens of digits for a model). */
function refOf(path: string): string {
  const hash = createHash('sha1').update(path).digest().readUInt32BE(0);
  return `e${String(hash % 1_000_000).padStart(6, '0')}`;
}

/**
 * Gives every node a ref that stays the same while the node stays on screen: a hash of its
 * identity path from the root (class, resource-id and label of each ancestor, plus the ordinal
 * among same-identity siblings), as `e` and six decimal digits. Bounds are not part of it, so
 * scrolling or a keyboard moving the layout keeps refs; a node on another screen, or renamed, gets
 * another ref. A ref depends on nothing but the screen, so it is the same in every process, after
 * a restart, and through both UI backends; a ref from an older screen names a node on the current
 * one only by a one-in-a-million chance.
 */
export function assignRefs(roots: UiNode[]): void {
  const used = new Set<string>();
  const walk = (nodes: UiNode[], parentPath: string) => {
    const seen = new Map<string, number>();
    for (const node of nodes) {
      const key = identity(node);
      const ordinal = seen.get(key) ?? 0;
      seen.set(key, ordinal + 1);
      const path = `${parentPath}/${key}#${ordinal}`;
      let ref = refOf(path);
      for (let salt = 1; used.has(ref); salt++) ref = refOf(`${path}~${salt}`);
      used.add(ref);
      node.ref = ref;
      walk(node.children, path);
    }
  };
  walk(roots, '');
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
