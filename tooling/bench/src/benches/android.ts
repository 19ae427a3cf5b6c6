import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AdbTestBed,
  type AndroidSim,
  adbBinary,
  mobileMcpElements,
  startAdbTestBed,
} from '@toolsys/android-sim';
import {
  createToolExecutor,
  ToolEnvironmentGate,
  ToolEnvironmentState,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import { countTokens } from '@toolsys/platform';
import {
  type AndroidTools,
  createAndroidTools,
  findAppiumInstall,
  flattenNodes,
  isActionable,
  isKeyboardWindow,
  parseUiHierarchy,
} from '@toolsys/platform-android';
import { freePort } from '@toolsys/test-support';
import { onInterrupt, removeOnExit } from '../cleanup.js';
import { type Bench, formatRatio, percentile } from '../report.js';
import { measureRealScreens } from './android-real-screens.js';

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

type Side = 'raw' | 'ours' | 'appium';
/**
 * Each round reads every screen from every side, in an order that alternates: the raw dump and
 * ui_dump through adb swap places, and so do ui_dump through adb and through Appium.
 */
const ORDERS: readonly (readonly Side[])[] = [
  ['raw', 'ours', 'appium'],
  ['appium', 'ours', 'raw'],
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
  /** ui_dump through the Appium backend (NaN when Appium is not measured). */
  readonly appiumMs: number;
}

/** Options for {@link createAndroidBench}. */
export interface AndroidBenchOptions {
  /**
   * APPIUM_HOME of the Appium server the `appiumVsAdb` side starts. Default platform-android's
   * own folder, where this repository installs Appium and the UiAutomator2 driver for its tests.
   */
  appiumHome?: string;
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
 *
 * `appiumVsAdb` (no target; it tells users which backend to pick): `ui_dump` through the Appium
 * backend (a local Appium 3 with the real UiAutomator2 driver, its session started before the
 * rounds) on a second, identical sim showing the same screen, against `ui_dump` through adb, in
 * the same rounds; the ratio of the p50 read times on the worst screen. `null`, with the reason,
 * when Appium is not installed or does not start.
 */
export function createAndroidBench(options: AndroidBenchOptions = {}): Bench {
  return {
    name: 'android',
    summary:
      'ui_dump tokens vs the raw uiautomator XML and a mobile-mcp-style element list, and ui_dump time through Appium vs adb (sim)',
    run: ({ quick }) => runAndroidBench(quick, options),
  };
}

/** `pnpm bench android`; see {@link createAndroidBench}. */
export const androidBench: Bench = createAndroidBench();

async function runAndroidBench(quick: boolean, options: AndroidBenchOptions) {
  const rounds = quick ? 2 : 10;
  const root = removeOnExit(await mkdtemp(join(tmpdir(), 'bench-android-')));
  let bed: AdbTestBed | undefined;
  let forget = () => {};
  let appiumTools: AndroidTools | undefined;
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
    const install = findAppiumInstall(options.appiumHome);
    let appiumSkipped = typeof install === 'string' ? install : undefined;
    // A second sim for the Appium side: the UiAutomator2 server and uiautomator dump do not
    // share a device well on real phones, so each backend gets its own copy of the screen.
    bed = await startAdbTestBed({ serverPort, sims: appiumSkipped ? [{}] : [{}, {}] });
    const started = bed;
    const serial = started.sims[0]?.serial;
    const appiumSerial = started.sims[1]?.serial;
    if (!serial) throw new Error('the sim did not connect');
    const environment = new ToolEnvironmentState();
    const { tools } = createAndroidTools({
      workspaceRoot: join(root, 'workspace'),
      dataDir: join(root, 'data'),
      adbServerPort: started.serverPort,
      environment,
      serial,
      settleMs: 0,
    });
    const registry = new ToolRegistry();
    for (const tool of tools) registry.register(tool);
    const executor = createToolExecutor({
      registry,
      environmentGate: new ToolEnvironmentGate({ state: environment }),
    });
    const shell = (command: string) => started.adb(['-s', serial, 'shell', command]);

    let readAppium: (() => Promise<void>) | undefined;
    if (!appiumSkipped && appiumSerial) {
      // A local Appium on 127.0.0.1, a child of this process (stopped by its pid on dispose,
      // and with every other child when the bench is interrupted), using the private adb server.
      const tools = createAndroidTools({
        workspaceRoot: join(root, 'workspace'),
        dataDir: join(root, 'data'),
        adbServerPort: started.serverPort,
        adbServerHost: '127.0.0.1',
        serial: appiumSerial,
        settleMs: 0,
        ui: 'appium',
        ...(options.appiumHome ? { appiumHome: options.appiumHome } : {}),
        appiumCapabilities: { 'appium:systemPort': await freePort() },
      });
      appiumTools = tools;
      const appiumRegistry = new ToolRegistry();
      for (const tool of tools.tools) appiumRegistry.register(tool);
      const appiumExecutor = createToolExecutor({ registry: appiumRegistry });
      const read = async () => {
        const result = await appiumExecutor.execute('ui_dump', {});
        if (!result.ok) throw new Error(`ui_dump through Appium failed: ${result.error.message}`);
      };
      try {
        // Starts the server and the session, which the read times leave out.
        await read();
        readAppium = read;
      } catch (error) {
        appiumSkipped = error instanceof Error ? error.message : String(error);
        await tools.dispose();
        appiumTools = undefined;
      }
    }
    const appiumShell = (command: string) =>
      readAppium && appiumSerial
        ? started.adb(['-s', appiumSerial, 'shell', command])
        : Promise.resolve('');

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
        for (const command of screen.commands) {
          await shell(command);
          await appiumShell(command);
        }
        let xml = '';
        let ours = { text: '', actionable: Number.NaN };
        const ms: Record<Side, number> = { raw: Number.NaN, ours: Number.NaN, appium: Number.NaN };
        for (const side of ORDERS[round % ORDERS.length] as readonly Side[]) {
          if (side === 'appium' && !readAppium) continue;
          const begin = performance.now();
          if (side === 'raw') xml = await readRaw();
          else if (side === 'ours') ours = await readOurs();
          else await readAppium?.();
          ms[side] = performance.now() - begin;
        }
        // Refs depend only on the screen, so a node of the raw XML has the ref ui_dump gave it.
        const content = parseUiHierarchy(xml).filter((node) => !isKeyboardWindow(node));
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
          appiumMs: ms.appium,
        });
      }
    }

    const screens = SCREENS.map(({ name }) => summarize(name, samples.get(name) ?? []));
    // The real captures: sizes only (deterministic), once each, through the same adb path.
    const realScreens = await measureRealScreens(started.sims[0] as AndroidSim, executor);
    const worstScreenVsPeer = Math.max(...realScreens.map((s) => s.vsPeer));
    const realActionableKept = Math.min(...realScreens.map((s) => s.actionableKept));
    const ratioVsRaw = Math.max(...screens.map((s) => s.ratioVsRaw));
    const ratioVsPeer = Math.max(...screens.map((s) => s.ratioVsPeer));
    const ratioVsPeerJson = Math.max(...screens.map((s) => s.ratioVsPeerJson));
    const actionableKept = Math.min(...screens.map((s) => s.actionableKept));
    const appiumVsAdb = readAppium
      ? Math.max(...screens.map((s) => s.appiumVsAdb ?? Number.NaN))
      : null;
    const appiumLine =
      appiumVsAdb === null
        ? `appiumVsAdb: null (Appium not measured: ${appiumSkipped ?? 'no second sim'})`
        : `appiumVsAdb ${formatRatio(appiumVsAdb)} (worst screen, ui_dump p50 through Appium / through adb; no target): ${screens
            .map(
              (s) =>
                `${s.screen} Appium ${s.appiumP50Ms}/${s.appiumP90Ms} ms vs adb ${s.oursP50Ms}/${s.oursP90Ms} ms (p50/p90)`,
            )
            .join('; ')}`;
    const met =
      ratioVsRaw <= TARGET_VS_RAW &&
      ratioVsPeer <= TARGET_VS_PEER &&
      actionableKept === 1 &&
      worstScreenVsPeer <= TARGET_VS_PEER &&
      realActionableKept === 1;
    return {
      name: 'android',
      target: `ratioVsRaw <= ${TARGET_VS_RAW}, ratioVsPeer <= ${TARGET_VS_PEER}, actionableKept = 1 (worst sim screen); worstScreenVsPeer <= ${TARGET_VS_PEER} with every labelled actionable node kept (real captures)`,
      met,
      lines: [
        `${rounds} rounds over ${SCREENS.length} sim screens through adb${readAppium ? ', and ui_dump through Appium on a second sim showing the same screens' : ''}; tokens are o200k_base; read order alternates`,
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
        appiumLine,
        `${realScreens.length} real captures (ui_dump with default arguments vs mobile-mcp text): ${realScreens
          .map(
            (s) =>
              `${s.screen} ${s.oursTokens}/${s.peerTokens} = ${formatRatio(s.vsPeer)}${s.actionableKept < 1 ? ` (kept ${formatRatio(s.actionableKept)})` : ''}${s.cut ? ' (cut)' : ''}`,
          )
          .join('; ')}`,
        `worstScreenVsPeer ${formatRatio(worstScreenVsPeer)} (${realScreens.find((s) => s.vsPeer === worstScreenVsPeer)?.screen}), labelled actionable nodes kept ${formatRatio(realActionableKept)}`,
      ],
      json: {
        ratioVsRaw,
        ratioVsPeer,
        actionableKept,
        ratioVsPeerJson,
        worstScreenVsPeer,
        realActionableKept,
        appiumVsAdb,
        ...(appiumVsAdb === null
          ? { appiumVsAdbReason: appiumSkipped ?? 'no second sim' }
          : {
              appium: {
                version: typeof install === 'string' ? undefined : install.appiumVersion,
                driver: typeof install === 'string' ? undefined : install.driverVersion,
              },
            }),
        rounds,
        tokenizer: 'o200k_base',
        screens,
        realScreens,
      },
    };
  } finally {
    // The Appium session and server first (by the server's pid), then the adb server.
    await appiumTools?.dispose();
    await bed?.stop();
    forget();
    await rm(root, { recursive: true, force: true });
  }
}

/** One screen's figures over all rounds: median sizes, worst kept share, median read times. */
function summarize(screen: string, samples: readonly ScreenSample[]) {
  if (samples.length === 0) throw new Error(`no samples for the ${screen}`);
  const at = (fraction: number, pick: (sample: ScreenSample) => number) =>
    percentile(
      samples.map(pick).sort((a, b) => a - b),
      fraction,
    );
  const median = (pick: (sample: ScreenSample) => number) => at(0.5, pick);
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
    oursP90Ms: round(
      at(0.9, (s) => s.oursMs),
      1,
    ),
    ...appiumFigures(samples),
    stable,
  };
}

/** The Appium side's p50 and p90 and its ratio to adb's p50; nulls when it was not measured. */
function appiumFigures(samples: readonly ScreenSample[]) {
  const measured = samples.filter((s) => Number.isFinite(s.appiumMs));
  if (measured.length === 0) return { appiumP50Ms: null, appiumP90Ms: null, appiumVsAdb: null };
  const sorted = (pick: (sample: ScreenSample) => number) =>
    measured.map(pick).sort((a, b) => a - b);
  const appiumP50 = percentile(
    sorted((s) => s.appiumMs),
    0.5,
  );
  const adbP50 = percentile(
    sorted((s) => s.oursMs),
    0.5,
  );
  return {
    appiumP50Ms: round(appiumP50, 1),
    appiumP90Ms: round(
      percentile(
        sorted((s) => s.appiumMs),
        0.9,
      ),
      1,
    ),
    appiumVsAdb: round(appiumP50 / adbP50, 2),
  };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
