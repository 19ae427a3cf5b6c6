import { flattenNodes, isEditable, type UiNode } from '../ui-hierarchy.js';

/** A WebDriver locator: the strategy and its value. */
export interface Locator {
  /** `accessibility id`, `id`, `-android uiautomator` or `xpath`. */
  readonly using: 'accessibility id' | 'id' | '-android uiautomator' | 'xpath';
  readonly value: string;
}

function quoteJava(value: string): string {
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

/** The absolute XPath of a node: class names as element names, 1-based among same-class siblings. */
function absoluteXpath(node: UiNode, roots: readonly UiNode[]): string | undefined {
  const walk = (siblings: readonly UiNode[], prefix: string): string | undefined => {
    const seen = new Map<string, number>();
    for (const candidate of siblings) {
      const index = (seen.get(candidate.className) ?? 0) + 1;
      seen.set(candidate.className, index);
      const path = `${prefix}/${candidate.className}[${index}]`;
      if (candidate === node) return path;
      const found = walk(candidate.children, path);
      if (found) return found;
    }
    return undefined;
  };
  return walk(roots, '/hierarchy');
}

/**
 * The locators that find `node` and nothing else on the page `roots` was read from, in the order
 * accessibility id > resource-id > UiAutomator selector > XPath. A locator that matches several
 * nodes is left out; the absolute XPath is unique by construction and comes last.
 */
export function chooseLocators(node: UiNode, roots: readonly UiNode[]): Locator[] {
  const all = flattenNodes(roots);
  const unique = (test: (candidate: UiNode) => boolean) => all.filter(test).length === 1;
  const locators: Locator[] = [];
  if (node.contentDesc && unique((candidate) => candidate.contentDesc === node.contentDesc)) {
    locators.push({ using: 'accessibility id', value: node.contentDesc });
  }
  if (node.resourceId && unique((candidate) => candidate.resourceId === node.resourceId)) {
    locators.push({ using: 'id', value: node.resourceId });
  }
  // A field's text changes as the user types, so it does not identify the field.
  if (
    node.text &&
    !isEditable(node) &&
    unique((candidate) => candidate.className === node.className && candidate.text === node.text)
  ) {
    locators.push({
      using: '-android uiautomator',
      value: `new UiSelector().className(${quoteJava(node.className)}).text(${quoteJava(node.text)})`,
    });
  }
  const xpath = absoluteXpath(node, roots);
  if (xpath) locators.push({ using: 'xpath', value: xpath });
  return locators;
}
