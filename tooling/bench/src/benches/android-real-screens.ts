import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AndroidSim, mobileMcpElements } from '@toolsys/android-sim';
import type { PipelineToolExecutor } from '@toolsys/core-tool-registry';
import { countTokens } from '@toolsys/platform';
import {
  flattenNodes,
  isActionable,
  isKeyboardWindow,
  parseUiHierarchy,
} from '@toolsys/platform-android';

/** Where platform-android keeps its real captures (sources and licences in SOURCES.md there). */
const FIXTURES = join(import.meta.dirname, '../../../../packages/platform-android/test/fixtures');

/** One real capture: its file name and bytes. */
export interface RealScreen {
  readonly name: string;
  readonly xml: string;
}

/** Every `uiautomator dump` captured on a real device that platform-android's tests read. */
export function readRealScreens(): RealScreen[] {
  const folder = join(FIXTURES, 'real-screens');
  const files = readdirSync(folder)
    .filter((file) => file.endsWith('.xml'))
    .sort()
    .map((file) => ({
      name: file.replace(/\.xml$/, ''),
      xml: readFileSync(join(folder, file), 'utf8'),
    }));
  return [
    ...files,
    {
      name: 'youtube-home',
      xml: readFileSync(join(FIXTURES, 'real-uiautomator-youtube-home.xml'), 'utf8'),
    },
  ];
}

/** What `ui_dump` costs on one real screen against the peer's element list of the same XML. */
export interface RealScreenFigures {
  readonly screen: string;
  readonly rawTokens: number;
  readonly oursTokens: number;
  readonly peerTokens: number;
  readonly peerJsonTokens: number;
  /** ours / peer (text format): the figure `worstScreenVsPeer` takes the maximum of. */
  readonly vsPeer: number;
  readonly actionable: number;
  /** Actionable nodes with a label (text, content-desc or resource-id). */
  readonly labelledActionable: number;
  /** Share of the labelled actionable nodes whose ref ui_dump shows. */
  readonly actionableKept: number;
  /** Whether ui_dump had to cut the screen at its default budget. */
  readonly cut: boolean;
}

/**
 * Serves each real capture from the sim (`uiautomator dump` writes its bytes), reads it through
 * `ui_dump` over the real adb path with default arguments, and compares the text the model reads
 * (header and markers included) with the peer's element list built from the same XML.
 */
export async function measureRealScreens(
  sim: AndroidSim,
  executor: PipelineToolExecutor,
): Promise<RealScreenFigures[]> {
  const figures: RealScreenFigures[] = [];
  const state = sim.device.state;
  const before = state.uiautomatorXml;
  try {
    for (const { name, xml } of readRealScreens()) {
      state.uiautomatorXml = xml;
      const result = await executor.execute('ui_dump', {});
      if (!result.ok) throw new Error(`ui_dump failed on ${name}: ${result.error.message}`);
      const data = result.data as { nextCursor?: unknown } | undefined;
      const content = parseUiHierarchy(xml).filter((node) => !isKeyboardWindow(node));
      const actionable = flattenNodes(content).filter(isActionable);
      const labelled = actionable.filter(
        (node) => node.text !== '' || node.contentDesc !== '' || node.resourceId !== '',
      );
      const kept = labelled.filter((node) => result.content.includes(`[${node.ref}]`));
      const peer = mobileMcpElements(content, 'text');
      const peerJson = mobileMcpElements(content, 'json');
      const oursTokens = countTokens(result.content);
      const peerTokens = countTokens(peer.text);
      figures.push({
        screen: name,
        rawTokens: countTokens(xml),
        oursTokens,
        peerTokens,
        peerJsonTokens: countTokens(peerJson.text),
        vsPeer: Math.round((oursTokens / peerTokens) * 1000) / 1000,
        actionable: actionable.length,
        labelledActionable: labelled.length,
        actionableKept: labelled.length === 0 ? 1 : kept.length / labelled.length,
        cut: data?.nextCursor !== undefined,
      });
    }
  } finally {
    state.uiautomatorXml = before;
  }
  return figures;
}
