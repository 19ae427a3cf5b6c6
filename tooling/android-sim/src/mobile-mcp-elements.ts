/** The fields of a parsed `uiautomator dump` node the mobile-mcp baseline reads. */
export interface PeerSourceNode {
  readonly className: string;
  readonly text: string;
  readonly contentDesc: string;
  readonly resourceId: string;
  readonly checkable: boolean;
  readonly focused: boolean;
  /** [left, top, right, bottom]. */
  readonly bounds: readonly [number, number, number, number];
  readonly children: readonly PeerSourceNode[];
}

/**
 * The two outputs of mobile-mcp's `mobile_list_elements_on_screen`: `text` (its default in
 * 1.0.4: a header line, then one compact line per element) and `json` (a JSON array).
 */
export type MobileMcpFormat = 'text' | 'json';

/** The element list a peer returns, and the nodes it kept. */
export interface MobileMcpElementList<Node extends PeerSourceNode> {
  /** The text the model reads. */
  readonly text: string;
  /** The nodes that became elements, in the peer's order (children before their parent). */
  readonly nodes: readonly Node[];
}

const TEXT_HEADER =
  'One element per line: @ref Type text= label= name= value= id= at=x,y size=WxH [focused] [selected] [checked] [disabled]';

function collect<Node extends PeerSourceNode>(node: Node, into: Node[]): void {
  for (const child of node.children) collect(child as Node, into);
  const hasRect = node.bounds[2] > node.bounds[0] && node.bounds[3] > node.bounds[1];
  const named =
    node.text !== '' || node.contentDesc !== '' || node.resourceId !== '' || node.checkable;
  if (named && hasRect) into.push(node);
}

function element(node: PeerSourceNode) {
  return {
    type: node.className || 'text',
    text: node.text,
    label: node.contentDesc,
    ...(node.resourceId ? { identifier: node.resourceId } : {}),
    coordinates: {
      x: node.bounds[0],
      y: node.bounds[1],
      width: node.bounds[2] - node.bounds[0],
      height: node.bounds[3] - node.bounds[1],
    },
    ...(node.focused ? { focused: true } : {}),
  };
}

function textLine(node: PeerSourceNode): string {
  const type = node.className || 'text';
  const parts = [type.slice(type.lastIndexOf('.') + 1)];
  if (node.text) parts.push(`text=${JSON.stringify(node.text)}`);
  if (node.contentDesc) parts.push(`label=${JSON.stringify(node.contentDesc)}`);
  if (node.resourceId) parts.push(`id=${JSON.stringify(node.resourceId)}`);
  const [left, top, right, bottom] = node.bounds;
  parts.push(`at=${left},${top}`, `size=${right - left}x${bottom - top}`);
  if (node.focused) parts.push('focused');
  return parts.join(' ');
}

/**
 * The element list of @mobilenext/mobile-mcp's Android path (its `AndroidRobot.collectElements`
 * and `formatElements`, as of 1.0.4), rebuilt from the same parsed `uiautomator dump` roots: a
 * node becomes an element when it has text, content-desc or resource-id, or is checkable, and a
 * non-empty rect (mobile-mcp also reads a `hint` attribute, which uiautomator dumps do not carry);
 * children come before their parent. The legacy ADB robot assigns no refs, so none are printed.
 * It is the peer baseline of the ui_dump size test and of `pnpm bench android`.
 */
export function mobileMcpElements<Node extends PeerSourceNode>(
  roots: readonly Node[],
  format: MobileMcpFormat,
): MobileMcpElementList<Node> {
  const nodes: Node[] = [];
  for (const root of roots) collect(root, nodes);
  const text =
    format === 'json'
      ? `Found these elements on screen: ${JSON.stringify(nodes.map(element))}`
      : [TEXT_HEADER, ...nodes.map(textLine)].join('\n');
  return { text, nodes };
}
