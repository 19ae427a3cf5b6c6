import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AdbTestBed, type AndroidSim, startAdbTestBed } from '@toolsys/android-sim';
import {
  createToolExecutor,
  handleOwnerKey,
  principalKey,
  ToolRegistry,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { freePort, textOf } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAppiumHome } from '../src/appium/appium-server.js';
import { AppiumUiBackend } from '../src/appium/appium-ui-backend.js';
import {
  type AndroidTools,
  centerOf,
  createAndroidTools,
  decodePng,
  flattenNodes,
  type UiNode,
} from '../src/index.js';
import { isListening } from '../src/tool-package.js';

// A real Appium 3 server (started by the backend on 127.0.0.1, a free port) with the real
// appium-uiautomator2-driver, the real adb server, and two identical sims: the adb backend drives
// one, the Appium backend the other, so every effect can be compared side by side. The driver
// installs its real server APKs on the sim and `am instrument` starts the sim's stand-in for the
// UiAutomator2 server behind `adb forward`.
describe('the UI tools through Appium and UiAutomator2', () => {
  let bed: AdbTestBed;
  let root: string;
  let adbTools: AndroidTools;
  let appiumTools: AndroidTools;
  let callAdb: (id: string, args?: Record<string, unknown>) => Promise<ToolResult>;
  let callAppium: (id: string, args?: Record<string, unknown>) => Promise<ToolResult>;
  let adbSim: AndroidSim;
  let appiumSim: AndroidSim;
  let defaultAdbPortBusy: boolean;

  function executor(tools: AndroidTools, serial: string) {
    const registry = new ToolRegistry();
    for (const tool of tools.tools) registry.register(tool);
    const run = createToolExecutor({ registry });
    return (id: string, args: Record<string, unknown> = {}) => run.execute(id, { ...args, serial });
  }

  /** The result text with the serial and the backend name taken out, for comparison. */
  function comparable(result: ToolResult, sim: AndroidSim): string {
    return textOf(result)
      .replaceAll(sim.serial, 'SERIAL')
      .replaceAll(/ \(via (adb|appium)\)| via (adb|appium)(?=:)/g, '')
      .replaceAll(/[\w.-]*screenshot-[^ ]+\.png/g, 'FILE.png')
      .replaceAll(root, 'ROOT');
  }

  async function backend(): Promise<AppiumUiBackend> {
    const chosen = await appiumTools.session.uiBackend();
    if (!(chosen instanceof AppiumUiBackend)) throw new Error('expected the Appium backend');
    return chosen;
  }

  async function onBoth(
    id: string,
    args: Record<string, unknown> = {},
  ): Promise<{ adb: ToolResult; appium: ToolResult }> {
    const adb = await callAdb(id, args);
    const appium = await callAppium(id, args);
    return { adb, appium };
  }

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'platform-android-appium-'));
    bed = await startAdbTestBed({ sims: [{}, {}] });
    adbSim = bed.sims[0] as AndroidSim;
    appiumSim = bed.sims[1] as AndroidSim;
    const workspaceRoot = join(root, 'workspace');
    await mkdir(workspaceRoot, { recursive: true });
    defaultAdbPortBusy = await isListening('127.0.0.1', 5037);
    const common = {
      workspaceRoot,
      dataDir: join(root, 'data'),
      adbServerPort: bed.serverPort,
      adbServerHost: '127.0.0.1',
      settleMs: 50,
    };
    adbTools = createAndroidTools({ ...common, ui: 'adb' });
    appiumTools = createAndroidTools({
      ...common,
      ui: 'appium',
      // A free systemPort keeps parallel runs on one machine from sharing the driver's default.
      appiumCapabilities: { 'appium:systemPort': await freePort() },
    });
    callAdb = executor(adbTools, adbSim.serial);
    callAppium = executor(appiumTools, appiumSim.serial);
  }, 60_000);

  afterAll(async () => {
    // Deletes the session and stops the Appium server by its pid, then the adb server and sims.
    await appiumTools?.dispose();
    await bed?.stop();
    await rm(root, { recursive: true, force: true });
  }, 60_000);

  it('starts one session on first use, through the real driver, and reuses it', async () => {
    const first = await callAppium('ui_dump');
    const second = await callAppium('ui_dump');
    expect(textOf(first)).toMatch(/^Screen of 127\.0\.0\.1:\d+ via appium: /);
    expect(textOf(second)).toBe(textOf(first));
    expect((await backend()).sessionsCreated.get(appiumSim.serial)).toBe(1);
    const server = appiumSim.uiautomator2;
    expect(server?.requests.filter((line) => line === 'POST /session')).toHaveLength(1);
    expect(
      server?.requests.filter((line) => /^GET \/session\/[^/]+\/source$/.test(line)),
    ).toHaveLength(2);
    // The driver really installed its server APKs on the sim.
    expect(appiumSim.device.state.apps.get('io.appium.uiautomator2.server')?.versionName).toMatch(
      /^\d+\.\d+\.\d+$/,
    );
    expect(appiumSim.device.state.apps.has('io.appium.uiautomator2.server.test')).toBe(true);
    // The short idle wait was set on the session.
    expect(server?.requests).toContain(`POST /session/${server?.sessionId}/appium/settings`);
  }, 150_000);

  it('has the local Appium use the configured adb server, host and port, never 5037', async () => {
    const reported = await (await backend()).activeCapabilities(appiumSim.serial);
    // What the real server made of the session's capabilities: the private adb server.
    expect(reported).toMatchObject({ adbPort: bed.serverPort, remoteAdbHost: '127.0.0.1' });
    // The sims are attached to the private server only, so the session above could only start
    // through it; and the driver started no adb server of its own on the default port.
    if (!defaultAdbPortBusy) expect(await isListening('127.0.0.1', 5037)).toBe(false);
  });

  it('dumps the same tree with the same refs as adb on the same screen', async () => {
    await callAdb('app_launch', { package: 'com.example.chat' });
    await callAppium('app_launch', { package: 'com.example.chat' });
    const { adb, appium } = await onBoth('ui_dump');
    expect(adb.ok && appium.ok).toBe(true);
    expect(comparable(appium, appiumSim)).toBe(comparable(adb, adbSim));
    expect(appium.ok && appium.data).toMatchObject({ backend: 'appium', nodes: 8, actionable: 4 });
    expect(adb.ok && adb.data).toMatchObject({ backend: 'adb' });
  }, 60_000);

  it('taps by ref through the element found by its resource-id, with the same effect', async () => {
    const dump = textOf(await callAppium('ui_dump'));
    const compose = /\[(e\d+)\] EditText #compose/.exec(dump)?.[1] as string;
    await callAdb('ui_dump');
    const { adb, appium } = await onBoth('ui_tap', { ref: compose });
    expect(textOf(appium)).toContain(
      `Tapped [${compose}] EditText "com.example.chat:id/compose" in "Alice" at (460, 2300) (via appium)`,
    );
    expect(textOf(appium)).toContain('The keyboard is now shown.');
    expect(comparable(appium, appiumSim)).toBe(comparable(adb, adbSim));
    expect(appiumSim.uiautomator2?.searches.at(-1)).toBe('id=com.example.chat:id/compose');
    expect(
      appiumSim.uiautomator2?.requests.filter((line) => /\/element\/[^/]+\/click$/.test(line)),
    ).toHaveLength(1);
  }, 60_000);

  it('types non-ASCII text through the driver into the focused field', async () => {
    const text = 'Hi Alice, ça va? 你好 😀';
    const appium = await callAppium('input_text', { text });
    expect(textOf(appium)).toMatch(
      /^Typed into \[e\d+\] EditText "com\.example\.chat:id\/compose" via Appium element value \(UiAutomator2\); it now reads "Hi Alice, ça va\? 你好 😀"\.$/,
    );
    // adb needs a helper app for non-ASCII text; the sim has Clipper, so the field ends the same.
    expect(textOf(await callAdb('input_text', { text }))).toContain(`it now reads "${text}"`);
    const field = (sim: AndroidSim) =>
      /text="([^"]*)" resource-id="com\.example\.chat:id\/compose"/.exec(sim.device.dumpXml())?.[1];
    expect(field(appiumSim)).toBe(text);
    expect(field(adbSim)).toBe(text);
    const replaced = await callAppium('input_text', { text: 'See you', clear: true });
    expect(textOf(replaced)).toContain('it now reads "See you"');
  }, 60_000);

  it('taps by selector through the unique accessibility id and opens the same screen', async () => {
    await callAdb('input_text', { text: 'See you', clear: true });
    const { adb, appium } = await onBoth('ui_tap', { contentDesc: 'Send' });
    expect(textOf(appium)).toMatch(/appeared: .*"Message sent"/);
    expect(comparable(appium, appiumSim)).toBe(comparable(adb, adbSim));
    expect(appiumSim.uiautomator2?.searches.at(-1)).toBe('accessibility id=Send');
    expect(appiumSim.device.screen.id).toBe(adbSim.device.screen.id);
  }, 60_000);

  it('swipes a list with W3C actions, with the same effect as adb', async () => {
    await callAdb('app_launch', { package: 'com.example.feed' });
    await callAppium('app_launch', { package: 'com.example.feed' });
    const { adb, appium } = await onBoth('ui_swipe', { direction: 'up', resourceId: 'list' });
    expect(textOf(appium)).toMatch(
      /^Swiped up on \[e\d+\] RecyclerView "com\.example\.feed:id\/list" .*\(via appium\)/,
    );
    expect(textOf(appium)).toContain('"Author 7"');
    expect(comparable(appium, appiumSim)).toBe(comparable(adb, adbSim));
    expect(appiumSim.uiautomator2?.requests.at(-2)).toMatch(/^POST \/session\/[^/]+\/actions$/);
  }, 60_000);

  it('refuses an ambiguous selector on both backends without touching the device', async () => {
    const before = appiumSim.uiautomator2?.requests.length;
    const { adb, appium } = await onBoth('ui_tap', { contentDesc: 'Like' });
    expect(appium.ok).toBe(false);
    expect(!appium.ok && appium.error.code).toBe('INVALID_ARGUMENT');
    expect(comparable(appium, appiumSim)).toBe(comparable(adb, adbSim));
    // Only the page source was read; no element was searched or clicked.
    expect(appiumSim.uiautomator2?.requests.slice(before)).toEqual([
      `GET /session/${appiumSim.uiautomator2?.sessionId}/source`,
    ]);
  }, 60_000);

  it('takes the same screenshot through the driver as through screencap', async () => {
    const { adb, appium } = await onBoth('screenshot', { maxSide: 400 });
    expect(textOf(appium)).toMatch(
      /^Saved a \d+x\d+ screenshot of 127\.0\.0\.1:\d+ \(via appium\) to /,
    );
    const path = (result: ToolResult) => (result.ok ? (result.data as { path: string }).path : '');
    const [adbImage, appiumImage] = await Promise.all([
      readFile(path(adb)),
      readFile(path(appium)),
    ]);
    expect(decodePng(appiumImage)).toEqual(decodePng(adbImage));
    expect(appium.ok && appium.data).toMatchObject({ backend: 'appium', mimeType: 'image/png' });
  }, 60_000);

  it('refuses to act on a node no locator finds exactly once on the device', async () => {
    await callAppium('ui_dump');
    const snapshot = appiumTools.session.lastSnapshot(
      appiumSim.serial,
      handleOwnerKey({ principal: principalKey(undefined), session: 'default' }),
    );
    const roots = snapshot?.roots ?? [];
    const likes = flattenNodes(roots).filter((node) => node.contentDesc === 'Like');
    expect(likes.length).toBeGreaterThan(1);
    const list = flattenNodes(roots).find((node) => node.resourceId.endsWith(':id/list'));
    expect(list).toBeDefined();
    // The screen changes after the snapshot: nothing on the launcher matches the list's locators.
    appiumSim.device.run('input keyevent KEYCODE_HOME');
    const error = await (await backend())
      .tap(await appiumTools.session.manager.select(appiumSim.serial), {
        node: list as UiNode,
        roots,
        point: centerOf(list as UiNode),
      })
      .then(
        () => undefined,
        (caught: unknown) => caught as { code: string; message: string },
      );
    expect(error?.code).toBe('NOT_FOUND');
    expect(error?.message).toBe(
      'No locator finds exactly one element for the node on the device\'s current page (id "com.example.feed:id/list": 0; xpath "/hierarchy/android.widget.FrameLayout[1]/android.widget.LinearLayout[1]/android.widget.FrameLayout[1]/androidx.recyclerview.widget.RecyclerView[1]": 0). Nothing was done.',
    );
    expect(appiumSim.device.screen.id).toBe('launcher');
  }, 60_000);

  it('reports a killed Appium server clearly, and the next call starts a new session', async () => {
    const server = (await backend()).localServer;
    const pid = server?.pid;
    expect(pid).toBeTypeOf('number');
    const exited = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (server?.pid === undefined) {
          clearInterval(poll);
          resolve();
        }
      }, 50);
    });
    process.kill(pid as number, 'SIGKILL');
    await exited;
    const failed = await callAppium('ui_dump');
    expect(failed.ok).toBe(false);
    expect(!failed.ok && failed.error.code).toBe('EXECUTION_FAILED');
    expect(!failed.ok && failed.error.message).toMatch(
      new RegExp(
        `^The Appium session on ${appiumSim.serial.replaceAll('.', '\\.')} ended \\(.+\\); the call did not complete\\.$`,
      ),
    );
    expect(!failed.ok && failed.error.hint).toContain('Retry the same call');
    const again = await callAppium('ui_dump');
    expect(textOf(again)).toMatch(/^Screen of 127\.0\.0\.1:\d+ via appium: /);
    expect((await backend()).sessionsCreated.get(appiumSim.serial)).toBe(2);
    expect(server?.pid).not.toBe(pid);
  }, 150_000);

  it('taps by coordinates and long-presses with W3C actions, with the same effect as adb', async () => {
    await callAdb('app_launch', { package: 'com.example.chat' });
    await callAppium('app_launch', { package: 'com.example.chat' });
    const { adb, appium } = await onBoth('ui_tap', { x: 400, y: 2300 });
    expect(textOf(appium)).toMatch(
      /^Tapped \(400, 2300\) \(via appium\)\. The keyboard is now shown\./,
    );
    expect(comparable(appium, appiumSim)).toBe(comparable(adb, adbSim));
    const held = await onBoth('ui_tap', { text: 'Alice', longPress: true });
    expect(textOf(held.appium)).toMatch(
      /^Long-pressed TextView "Alice" at \(440, 220\) \(via appium\)/,
    );
    expect(comparable(held.appium, appiumSim)).toBe(comparable(held.adb, adbSim));
    expect(
      appiumSim.uiautomator2?.requests.filter((line) => line.endsWith('/actions')).length,
    ).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('falls back to adb in auto mode when no Appium answers', async () => {
    const closedPort = await freePort();
    const auto = createAndroidTools({
      workspaceRoot: join(root, 'workspace'),
      dataDir: join(root, 'data'),
      adbServerPort: bed.serverPort,
      settleMs: 50,
      ui: 'auto',
      appiumUrl: `http://127.0.0.1:${closedPort}`,
    });
    try {
      const result = await executor(auto, adbSim.serial)('ui_dump');
      expect(textOf(result)).toMatch(/^Screen of 127\.0\.0\.1:\d+ via adb: /);
    } finally {
      await auto.dispose();
    }
  }, 60_000);
});

// `ui: "auto"` with a local Appium installed in its own APPIUM_HOME, whose packages the test links
// in and out (as installing and uninstalling would), the real server killed mid-session, and an
// injected clock for the back-off.
describe('ui auto over time', () => {
  let bed: AdbTestBed;
  let root: string;
  let home: string;
  let tools: AndroidTools;
  let now = 1_000_000;

  const installed = defaultAppiumHome();
  async function install(): Promise<void> {
    await mkdir(join(home, 'node_modules'), { recursive: true });
    for (const name of ['appium', 'appium-uiautomator2-driver']) {
      await symlink(join(installed, 'node_modules', name), join(home, 'node_modules', name));
    }
  }
  async function uninstall(): Promise<void> {
    for (const name of ['appium', 'appium-uiautomator2-driver']) {
      await rm(join(home, 'node_modules', name), { force: true });
    }
  }

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'platform-android-auto-'));
    home = join(root, 'appium-home');
    await mkdir(join(root, 'workspace'), { recursive: true });
    await mkdir(home, { recursive: true });
    await writeFile(
      join(home, 'package.json'),
      JSON.stringify({
        name: 'appium-home',
        private: true,
        dependencies: { appium: '3.8.0', 'appium-uiautomator2-driver': '8.7.0' },
      }),
    );
    bed = await startAdbTestBed({ sims: [{}] });
    tools = createAndroidTools({
      workspaceRoot: join(root, 'workspace'),
      dataDir: join(root, 'data'),
      adbServerPort: bed.serverPort,
      settleMs: 50,
      ui: 'auto',
      appiumHome: home,
      appiumCapabilities: { 'appium:systemPort': await freePort() },
      now: () => now,
    });
  }, 60_000);

  afterAll(async () => {
    await tools?.dispose();
    await bed?.stop();
    await rm(root, { recursive: true, force: true });
  }, 60_000);

  it('uses adb while Appium is missing, Appium once it appears, adb with a note when it dies', async () => {
    const sim = bed.sims[0] as AndroidSim;
    const call = (() => {
      const registry = new ToolRegistry();
      for (const tool of tools.tools) registry.register(tool);
      const run = createToolExecutor({ registry });
      return (id: string) => run.execute(id, { serial: sim.serial });
    })();
    const via = /^Screen of 127\.0\.0\.1:\d+ via (adb|appium): /;

    // Nothing installed: adb, and no note (choosing adb is not a failure).
    const first = await call('ui_dump');
    expect(textOf(first)).toMatch(via);
    expect(via.exec(textOf(first))?.[1]).toBe('adb');
    expect(textOf(first)).not.toContain('Appium is not usable');

    // Installed now, but within the back-off: still adb.
    await install();
    now += 30_000;
    expect(via.exec(textOf(await call('ui_dump')))?.[1]).toBe('adb');

    // After the back-off Appium is looked for again, found, started and used.
    now += 31_000;
    const onAppium = await call('ui_dump');
    expect(via.exec(textOf(onAppium))?.[1]).toBe('appium');
    const backend = await tools.session.uiBackend();
    if (!(backend instanceof AppiumUiBackend)) throw new Error('expected the Appium backend');
    const pid = backend.localServer?.pid as number;
    expect(pid).toBeTypeOf('number');

    // The server is killed and cannot be started again (uninstalled): the call runs through adb
    // and says why; the screen is the same.
    await uninstall();
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => backend.localServer?.pid, { timeout: 10_000 }).toBeUndefined();
    const fallen = await call('ui_dump');
    const fallenText = textOf(fallen);
    expect(via.exec(fallenText)?.[1]).toBe('adb');
    expect(fallenText.split('\n').at(-1)).toMatch(
      /^Appium is not usable now \(Could not start a local Appium server: Appium is not installed under .+\), so this ran through adb; Appium is tried again after 60 s\.$/,
    );
    const tree = (result: ToolResult) =>
      textOf(result)
        .split('\n')
        .slice(1)
        .filter((line) => !line.startsWith('Appium is not usable'));
    expect(tree(fallen)).toEqual(tree(onAppium));

    // Actions fall back too while backed off, without a note (nothing failed on this call).
    const tap = await executeTap(tools, sim.serial);
    expect(textOf(tap)).toContain('(via adb)');
    expect(textOf(tap)).not.toContain('Appium is not usable');

    // Installed again and the back-off over: a new server and session, through Appium.
    await install();
    now += 61_000;
    const back = await call('ui_dump');
    expect(via.exec(textOf(back))?.[1]).toBe('appium');
    expect(backend.localServer?.pid).toBeTypeOf('number');
    expect(backend.localServer?.pid).not.toBe(pid);
    expect(backend.sessionsCreated.get(sim.serial)).toBe(2);
  }, 180_000);
});

async function executeTap(tools: AndroidTools, serial: string): Promise<ToolResult> {
  const registry = new ToolRegistry();
  for (const tool of tools.tools) registry.register(tool);
  return createToolExecutor({ registry }).execute('ui_tap', { serial, x: 10, y: 10 });
}
