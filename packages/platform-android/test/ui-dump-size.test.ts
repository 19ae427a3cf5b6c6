import { createDefaultDeviceState, SimDevice } from '@toolsys/android-sim';
import { describe, expect, it } from 'vitest';
import {
  flattenNodes,
  isActionable,
  isKeyboardWindow,
  parseUiHierarchy,
  renderUiTree,
  type UiNode,
} from '../src/index.js';

/** Tokens estimated as characters / 4 (the usual rule of thumb for English and markup). */
function tokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * The element list of @mobilenext/mobile-mcp's Android path, reimplemented from its documented
 * filter (a node becomes an element when it has text, content-desc, hint or resource-id, or is
 * checkable, and a non-empty rect), serialised as the JSON list it returns.
 */
function peerElements(roots: readonly UiNode[]): { json: string; nodes: UiNode[] } {
  const nodes = flattenNodes(roots).filter(
    (node) =>
      (node.text !== '' || node.contentDesc !== '' || node.resourceId !== '' || node.checkable) &&
      node.bounds[2] > node.bounds[0] &&
      node.bounds[3] > node.bounds[1],
  );
  const elements = nodes.map((node) => ({
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
  return { json: `Found these elements on screen: ${JSON.stringify(elements)}`, nodes };
}

function screen(commands: string[]): string {
  const device = new SimDevice(createDefaultDeviceState());
  for (const command of commands) device.run(command);
  return device.dumpXml();
}

const SCREENS: Record<string, string[]> = {
  'settings list': ['monkey -p com.android.settings 1'],
  'chat with keyboard up': ['monkey -p com.example.chat 1', 'input tap 400 2300'],
  'long feed': ['monkey -p com.example.feed 1'],
};

// Measures ui_dump against the raw XML and a peer's element list on the sim's screens; prints the figures.
describe('ui_dump size', () => {
  for (const [name, commands] of Object.entries(SCREENS)) {
    it(`stays within 15% of the raw XML and 70% of the peer list on the ${name}, losing no actionable node`, () => {
      const xml = screen(commands);
      const roots = parseUiHierarchy(xml);
      const ours = renderUiTree(roots);
      const peer = peerElements(roots.filter((root) => !isKeyboardWindow(root)));
      const actionable = flattenNodes(roots.filter((root) => !isKeyboardWindow(root))).filter(
        isActionable,
      );
      const kept = actionable.filter((node) => ours.text.includes(`[${node.ref}]`));
      const figures = {
        screen: name,
        rawTokens: tokens(xml),
        oursTokens: tokens(ours.text),
        peerTokens: tokens(peer.json),
        ratioVsRaw: Number((tokens(ours.text) / tokens(xml)).toFixed(3)),
        ratioVsPeer: Number((tokens(ours.text) / tokens(peer.json)).toFixed(3)),
        actionable: actionable.length,
        actionableKept: kept.length / actionable.length,
        peerActionable: peer.nodes.filter(isActionable).length,
      };
      console.log(JSON.stringify(figures));
      expect(figures.ratioVsRaw).toBeLessThanOrEqual(0.15);
      expect(figures.ratioVsPeer).toBeLessThanOrEqual(0.7);
      expect(figures.actionableKept).toBe(1);
    });
  }
});
