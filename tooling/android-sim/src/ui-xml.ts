import type { SimNode, SimScreen } from './device-model.js';

function escapeXml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

/** The children a node shows now (a scrollable node with pages shows its current page). */
export function visibleChildren(
  node: SimNode,
  pageOf: (node: SimNode) => number,
): readonly SimNode[] {
  if (node.pages && node.pages.length > 0) return node.pages[pageOf(node)] ?? [];
  return node.children ?? [];
}

/**
 * Renders a screen the way `uiautomator dump` writes it (AccessibilityNodeInfoDumper: one line, the
 * attributes in its order, `index` per sibling, booleans as "true"/"false").
 */
export function renderHierarchyXml(
  screen: SimScreen,
  pageOf: (node: SimNode) => number,
  keyboard?: SimNode,
  boundsOf: (node: SimNode) => readonly [number, number, number, number] = (node) => node.bounds,
): string {
  const parts: string[] = [
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">",
  ];
  // The keyboard window is laid out on its own; only the app window resizes around it.
  const write = (node: SimNode, index: number, packageName: string, inApp = true) => {
    const [left, top, right, bottom] = inApp ? boundsOf(node) : node.bounds;
    parts.push(
      `<node index="${index}" text="${escapeXml(node.text ?? '')}" resource-id="${escapeXml(node.resourceId ?? '')}" class="${escapeXml(node.className)}" package="${escapeXml(packageName)}" content-desc="${escapeXml(node.contentDesc ?? '')}" checkable="${Boolean(node.checkable)}" checked="${Boolean(node.checked)}" clickable="${Boolean(node.clickable)}" enabled="true" focusable="${Boolean(node.focusable)}" focused="${Boolean(node.focused)}" scrollable="${Boolean(node.scrollable)}" long-clickable="${Boolean(node.longClickable)}" password="${Boolean(node.password)}" selected="false" bounds="[${left},${top}][${right},${bottom}]"`,
    );
    const children = visibleChildren(node, pageOf);
    if (children.length === 0) {
      parts.push(' />');
      return;
    }
    parts.push('>');
    children.forEach((child, childIndex) => {
      write(child, childIndex, packageName, inApp);
    });
    parts.push('</node>');
  };
  write(screen.root, 0, screen.packageName);
  if (keyboard) write(keyboard, 1, 'com.google.android.inputmethod.latin', false);
  parts.push('</hierarchy>');
  return parts.join('');
}
