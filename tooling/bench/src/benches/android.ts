import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AdbTestBed,
  adbBinary,
  freePort,
  mobileMcpElements,
  startAdbTestBed,
} from '@toolsys/android-sim';
import {
  EnhancedToolExecutor,
  ToolEnvironmentGate,
  ToolEnvironmentState,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import {
  createAndroidTools,
  flattenNodes,
  isActionable,
  isKeyboardWindow,
  parseUiHierarchy,
} from '@toolsys/platform-android';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { onInterrupt, removeOnExit } from '../cleanup.js';
import { type Bench, formatRatio } from '../report.js';

const TARGET_VS_RAW = 0.15;
const TARGET_VS_PEER = 0.7;
const DUMP_PATH = '/sdcard/window_dump.xml';

/** The sim's screens of realistic size, and the adb shell commands that bring each one up. */
const SCREENS: readonly { readonly name: string; readonly commands: readonly string[] }[] = [
  { name: 'settings list', commands: ['monkey -p com.android.settings 1'] },
  {
    name: 'chat with keyboard up',
    commands: ['monkey -p com.example.chat 1', 'input tap 400 2300'],
  },
  { name: 'long feed', commands: ['monkey -p com.example.feed 1'] },
];

type Side = 'raw' | 'ours';
/** Each round reads every screen from both sides, in an order that alternates. */
const ORDERS: readonly (readonly Side[])[] = [
  ['raw', 'ours'],
  ['ours', 'raw'],
];

/** What one round measured on one screen. */
interface ScreenSample {
  readonly rawTokens: number;
  readonly oursTokens: number;
  readonly peerTokens: number;
  readonly peerJsonTokens: number;
  readonly rawActionable: number;
  readonly oursActionable: number;
  readonly oursKept: number;
  readonly peerActionable: number;
  readonly rawMs: number;
  readonly oursMs: number;
}

/**
 * `pnpm bench android`: the size in o200k_base tokens of what the model reads from one Android
 * screen, through the real adb binary against android-sim (a private adb server): `ui_dump`'s
 * compact tree (header included, as the model gets it) vs the raw `uiautomator dump` XML of the
 * same screen vs the element list @mobilenext/mobile-mcp 1.0.4 builds from that XML, in its default
 * `text` format (`ratioVsPeer`) and its `json` format (`ratioVsPeerJson`). The keyboard window is
 * left out of the peer list (mobile-mcp would list its keys), which only makes the peer smaller.
 * Actionable nodes (clickable, long-clickable, scrollable, checkable, editable, focusable leaves;
 * the keyboard excluded, as ui_dump folds it into one line) are counted in each, and
 * `actionableKept` is the share of the raw XML's actionable nodes whose ref ui_dump shows. Rounds
 * alternate which side reads first; every round re-opens each screen. The headline figures are the
 * worst screen's: `ratioVsRaw` = ours / raw, `ratioVsPeer` = ours / peer, `actionableKept` (min).
 */
export const androidBench: Bench = {
  name: 'android',
  summary: 'ui_dump tokens vs the raw uiautomator XML and a mobile-mcp-style element list (sim)',
  async run({ quick }) {
    const rounds = quick ? 2 : 10;
    const root = removeOnExit(await mkdtemp(join(tmpdir(), 'bench-android-')));
    let bed: AdbTestBed | undefined;
    let forget = () => {};
    try {
      const serverPort = await freePort();
      // The adb server daemonises, so it is no child of the bench: stop it by its port if
      // interrupted, from the moment it may exist.
      forget = onInterrupt(() => {
        execFileSync(adbBinary(), ['-P', String(serverPort), 'kill-server'], {
          stdio: 'ignore',
          timeout: 5_000,
        });
      });
      bed = await startAdbTestBed({ serverPort });
      const started = bed;
      const serial = started.sims[0]?.serial;
      if (!serial) throw new Error('the sim did not connect');
      const environment = new ToolEnvironmentState();
      const { tools, session } = createAndroidTools({
        workspaceRoot: join(root, 'workspace'),
        dataDir: join(root, 'data'),
        adbServerPort: started.serverPort,
        environment,
        serial,
        settleMs: 0,
      });
      const registry = new ToolRegistry();
      for (const tool of tools) registry.register(tool);
      const executor = new EnhancedToolExecutor({
        registry,
        environmentGate: new ToolEnvironmentGate({ state: environment }),
      });
      const shell = (command: string) => started.adb(['-s', serial, 'shell', command]);

      const readRaw = async (): Promise<string> => {
        const out = await shell(`uiautomator dump ${DUMP_PATH}`);
        if (!out.includes('dumped to')) throw new Error(`uiautomator dump failed: ${out.trim()}`);
        return shell(`cat ${DUMP_PATH}`);
      };
      const readOurs = async (): Promise<{ text: string; actionable: number }> => {
        const result = await executor.execute('ui_dump', {});
        if (!result.ok) throw new Error(`ui_dump failed: ${result.error.message}`);
        const data = result.data as { actionable?: unknown } | undefined;
        return {
          text: result.content,
          actionable: typeof data?.actionable === 'number' ? data.actionable : Number.NaN,
        };
      };

      const samples = new Map<string, ScreenSample[]>(SCREENS.map((s) => [s.name, []]));
      for (let round = 0; round < rounds; round += 1) {
        for (const screen of SCREENS) {
          for (const command of screen.commands) await shell(command);
          let xml = '';
          let ours = { text: '', actionable: Number.NaN };
          const ms: Record<Side, number> = { raw: Number.NaN, ours: Number.NaN };
          for (const side of ORDERS[round % ORDERS.length] as readonly Side[]) {
            const begin = performance.now();
            if (side === 'raw') xml = await readRaw();
            else ours = await readOurs();
            ms[side] = performance.now() - begin;
          }
          // The same ref table as ui_dump's, so a node of the raw XML has the ref ui_dump gave it.
          const content = parseUiHierarchy(xml, session.refTable(serial)).filter(
            (node) => !isKeyboardWindow(node),
          );
          const nodes = flattenNodes(content);
          const actionable = nodes.filter(isActionable);
          const peer = mobileMcpElements(content, 'text');
          const peerJson = mobileMcpElements(content, 'json');
          samples.get(screen.name)?.push({
            rawTokens: countTokens(xml),
            oursTokens: countTokens(ours.text),
            peerTokens: countTokens(peer.text),
            peerJsonTokens: countTokens(peerJson.text),
            rawActionable: actionable.length,
            oursActionable: ours.actionable,
            oursKept: actionable.filter((node) => ours.text.includes(`[${node.ref}]`)).length,
            peerActionable: peer.nodes.filter(isActionable).length,
            rawMs: ms.raw,
            oursMs: ms.ours,
          });
        }
      }

      const screens = SCREENS.map(({ name }) => summarize(name, samples.get(name) ?? []));
      const ratioVsRaw = Math.max(...screens.map((s) => s.ratioVsRaw));
      const ratioVsPeer = Math.max(...screens.map((s) => s.ratioVsPeer));
      const ratioVsPeerJson = Math.max(...screens.map((s) => s.ratioVsPeerJson));
      const actionableKept = Math.min(...screens.map((s) => s.actionableKept));
      const met =
        ratioVsRaw <= TARGET_VS_RAW && ratioVsPeer <= TARGET_VS_PEER && actionableKept === 1;
      return {
        name: 'android',
        target: `ratioVsRaw <= ${TARGET_VS_RAW}, ratioVsPeer <= ${TARGET_VS_PEER}, actionableKept = 1 (worst screen)`,
        met,
        lines: [
          `${rounds} rounds over ${SCREENS.length} sim screens through adb; tokens are o200k_base; raw/ours read order alternates`,
          ...screens.map(
            (s) =>
              `${s.screen.padEnd(22)} raw XML ${s.rawTokens} tok (${s.rawActionable} actionable); mobile-mcp text ${s.peerTokens} tok, json ${s.peerJsonTokens} tok (${s.peerActionable} actionable); ui_dump ${s.oursTokens} tok (${s.oursKept} of ${s.rawActionable} actionable kept)${s.stable ? '' : ' (sizes varied between rounds; medians)'}`,
          ),
          ...screens.map(
            (s) =>
              `${s.screen.padEnd(22)} ratios: vs raw ${formatRatio(s.ratioVsRaw)}, vs mobile-mcp text ${formatRatio(s.ratioVsPeer)}, vs mobile-mcp json ${formatRatio(s.ratioVsPeerJson)}`,
          ),
          ...screens.map(
            (s) =>
              `${s.screen.padEnd(22)} read time p50: raw dump ${s.rawP50Ms} ms, ui_dump ${s.oursP50Ms} ms (the raw side runs the adb client twice; ui_dump talks to the adb server in-process and also reads device state)`,
          ),
          `worst screen: ratioVsRaw ${formatRatio(ratioVsRaw)}, ratioVsPeer ${formatRatio(ratioVsPeer)} (json ${formatRatio(ratioVsPeerJson)}), actionableKept ${formatRatio(actionableKept)}`,
        ],
        json: {
          ratioVsRaw,
          ratioVsPeer,
          actionableKept,
          ratioVsPeerJson,
          rounds,
          tokenizer: 'o200k_base',
          screens,
        },
      };
    } finally {
      await bed?.stop();
      forget();
      await rm(root, { recursive: true, force: true });
    }
  },
};

/** One screen's figures over all rounds: median sizes, worst kept share, median read times. */
function summarize(screen: string, samples: readonly ScreenSample[]) {
  if (samples.length === 0) throw new Error(`no samples for the ${screen}`);
  const median = (pick: (sample: ScreenSample) => number) => {
    const values = samples.map(pick).sort((a, b) => a - b);
    return values[Math.floor(values.length / 2)] as number;
  };
  const rawTokens = median((s) => s.rawTokens);
  const oursTokens = median((s) => s.oursTokens);
  const peerTokens = median((s) => s.peerTokens);
  const peerJsonTokens = median((s) => s.peerJsonTokens);
  const rawActionable = median((s) => s.rawActionable);
  const stable = samples.every(
    (s) =>
      s.rawTokens === rawTokens &&
      s.oursTokens === oursTokens &&
      s.peerTokens === peerTokens &&
      s.peerJsonTokens === peerJsonTokens &&
      s.rawActionable === rawActionable,
  );
  return {
    screen,
    rawTokens,
    oursTokens,
    peerTokens,
    peerJsonTokens,
    ratioVsRaw: round(oursTokens / rawTokens, 3),
    ratioVsPeer: round(oursTokens / peerTokens, 3),
    ratioVsPeerJson: round(oursTokens / peerJsonTokens, 3),
    rawActionable,
    oursActionable: median((s) => s.oursActionable),
    oursKept: Math.min(...samples.map((s) => s.oursKept)),
    peerActionable: median((s) => s.peerActionable),
    actionableKept: round(Math.min(...samples.map((s) => s.oursKept / s.rawActionable)), 3),
    rawP50Ms: round(
      median((s) => s.rawMs),
      1,
    ),
    oursP50Ms: round(
      median((s) => s.oursMs),
      1,
    ),
    stable,
  };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
