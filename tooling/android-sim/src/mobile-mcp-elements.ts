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
}

/** The element list a peer returns, and the nodes it kept (in document order). */
export interface MobileMcpElementList<Node extends PeerSourceNode> {
  /** The text the model reads. */
  readonly text: string;
  /** The nodes that became elements. */
  readonly nodes: readonly Node[];
}

/**
 * The element list of @mobilenext/mobile-mcp's Android path, reimplemented from its documented
 * filter (a node becomes an element when it has text, content-desc or resource-id, or is
 * checkable, and a non-empty rect), serialised as the JSON list it returns. `nodes` is the
 * flattened hierarchy in document order; it is the baseline for the ui_dump size test and bench.
 */
export function mobileMcpElements<Node extends PeerSourceNode>(
  nodes: readonly Node[],
): MobileMcpElementList<Node> {
  const kept = nodes.filter(
    (node) =>
      (node.text !== '' || node.contentDesc !== '' || node.resourceId !== '' || node.checkable) &&
      node.bounds[2] > node.bounds[0] &&
      node.bounds[3] > node.bounds[1],
  );
  const elements = kept.map((node) => ({
    type: node.className,
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
  }));
  return { text: `Found these elements on screen: ${JSON.stringify(elements)}`, nodes: kept };
}
