import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDefaultDeviceState, mobileMcpElements, SimDevice } from '@toolsys/android-sim';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import {
  flattenNodes,
  isActionable,
  isKeyboardWindow,
  parseUiHierarchy,
  renderUiTree,
} from '../src/index.js';

/** Tokens in o200k_base, the tokenizer of current OpenAI models (`pnpm bench android` uses it too). */
function tokens(text: string): number {
  return countTokens(text);
}

function simScreen(commands: string[]): () => string {
  return () => {
    const device = new SimDevice(createDefaultDeviceState());
    for (const command of commands) device.run(command);
    return device.dumpXml();
  };
}

const SCREENS: Record<string, () => string> = {
  'settings list': simScreen(['monkey -p com.android.settings 1']),
  'chat with keyboard up': simScreen(['monkey -p com.example.chat 1', 'input tap 400 2300']),
  'long feed': simScreen(['monkey -p com.example.feed 1']),
  // A dump captured from a real device (source in test/fixtures/README.md).
  'YouTube home (real device)': () =>
    readFileSync(join(import.meta.dirname, 'fixtures/real-uiautomator-youtube-home.xml'), 'utf8'),
};

// Measures ui_dump against the raw XML and a peer's element list on the sim's screens; prints the figures.
describe('ui_dump size', () => {
  for (const [name, read] of Object.entries(SCREENS)) {
    it(`stays within 15% of the raw XML and 70% of the peer list on the ${name}, losing no actionable node`, () => {
      const xml = read();
      const roots = parseUiHierarchy(xml);
      const ours = renderUiTree(roots);
      const peer = mobileMcpElements(
        roots.filter((root) => !isKeyboardWindow(root)),
        'text',
      );
      const actionable = flattenNodes(roots.filter((root) => !isKeyboardWindow(root))).filter(
        isActionable,
      );
      const kept = actionable.filter((node) => ours.text.includes(`[${node.ref}]`));
      const figures = {
        screen: name,
        rawTokens: tokens(xml),
        oursTokens: tokens(ours.text),
        peerTokens: tokens(peer.text),
        ratioVsRaw: Number((tokens(ours.text) / tokens(xml)).toFixed(3)),
        ratioVsPeer: Number((tokens(ours.text) / tokens(peer.text)).toFixed(3)),
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
