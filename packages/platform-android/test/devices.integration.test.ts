import { AndroidSim } from '@toolsys/android-sim';
import type { ToolResult } from '@toolsys/core-tool-registry';
import { type AndroidHarness, startAndroidHarness, textOf } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAndroidTools, toolPackage } from '../src/index.js';

function failure(result: ToolResult) {
  if (result.ok) throw new Error(`expected a failure, got: ${result.content}`);
  return result.error;
}

// Two sims on one private adb server: device selection, detection, and a device lost mid-call.
describe('device selection and loss against two android-sim devices', () => {
  let harness: AndroidHarness;
  let first: AndroidSim;
  let second: AndroidSim;

  beforeAll(async () => {
    harness = await startAndroidHarness(createAndroidTools, {
      sims: [{}, { device: { model: 'Galaxy S23', adbKeyboard: true, clipper: false } }],
      commandTimeoutMs: 2_000,
    });
    [first, second] = harness.bed.sims as [AndroidSim, AndroidSim];
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it('asks which device when several are online, listing them', async () => {
    const error = failure(await harness.call('get_device_info'));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.field).toBe('serial');
    expect(error.message).toContain(`${first.serial} (device)`);
    expect(error.message).toContain(`${second.serial} (device)`);
    expect(error.hint).toContain('Pass "serial"');
  });

  it('uses the device named by serial', async () => {
    expect(textOf(await harness.call('get_device_info', { serial: second.serial }))).toContain(
      'Galaxy S23',
    );
  });

  it('types Unicode through ADBKeyboard when it is installed and restores the previous IME', async () => {
    await harness.call('app_launch', { package: 'com.example.chat', serial: second.serial });
    const typed = await harness.call('input_text', {
      text: 'Grüße, 世界 🌍',
      resourceId: 'compose',
      serial: second.serial,
    });
    expect(textOf(typed)).toMatch(
      /via ADBKeyboard broadcast \(ADB_INPUT_B64\); it now reads "Grüße, 世界 🌍"\.$/,
    );
    expect(second.device.state.settings.secure.get('default_input_method')).toBe(
      'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME',
    );
  });

  it('refuses non-ASCII text with the fix when the device has no helper', async () => {
    second.device.state.apps.delete('com.android.adbkeyboard');
    const error = failure(
      await harness.call('input_text', { text: 'ñ', resourceId: 'compose', serial: second.serial }),
    );
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.hint).toContain(
      'Install ADBKeyboard (com.android.adbkeyboard) or Clipper (ca.zgrs.clipper)',
    );
    expect(
      failure(await harness.call('clipboard', { action: 'get', serial: second.serial })).code,
    ).toBe('UNSUPPORTED');
  });

  it('says when the named device is not attached', async () => {
    const error = failure(await harness.call('get_device_info', { serial: 'R58M00000' }));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toMatch(/^Device R58M00000 is not attached\. Attached: /);
  });

  it('detects adb and names the devices online', async () => {
    const environment = {
      config: {},
      workspaceRoot: harness.workspaceRoot,
      dataDir: harness.dataDir,
      configDir: harness.workspaceRoot,
      env: { ...process.env, ANDROID_ADB_SERVER_PORT: String(harness.bed.serverPort) },
    };
    const several = await toolPackage.detect(environment);
    expect(several.enabled).toBe(true);
    expect(several.reason).toMatch(/^adb 1\.0\.\d+: 2 devices online/);
    const chosen = await toolPackage.detect({ ...environment, config: { serial: first.serial } });
    expect(chosen).toEqual({
      enabled: true,
      reason: expect.stringContaining(`device ${first.serial} online`),
    });
    const missing = await toolPackage.detect({ ...environment, config: { serial: 'R58M00000' } });
    expect(missing.enabled).toBe(false);
    expect(missing.reason).toContain('configured device R58M00000 is not online');
  });

  it('with a device online, says whether Appium is usable and how to switch the UI tools to it', async () => {
    const environment = {
      config: { serial: first.serial },
      workspaceRoot: harness.workspaceRoot,
      dataDir: harness.dataDir,
      configDir: harness.workspaceRoot,
      env: { ...process.env, ANDROID_ADB_SERVER_PORT: String(harness.bed.serverPort) },
    };
    // This package's optional peers (appium, the UiAutomator2 driver) are installed here.
    expect((await toolPackage.detect(environment)).reason).toMatch(
      new RegExp(
        `device ${first.serial} online\\. UI tools through adb \\(uiautomator\\)\\. Appium 3\\.\\d+\\.\\d+ with appium-uiautomator2-driver \\d+\\.\\d+\\.\\d+ is installed and can be used: set packages\\.platform-android\\.ui to "appium"`,
      ),
    );
    // A configured Appium URL where nothing answers: said so, with the step to take.
    const silent = await toolPackage.detect({
      ...environment,
      config: { serial: first.serial, appiumUrl: 'http://127.0.0.1:9/' },
    });
    expect(silent).toEqual({
      enabled: true,
      reason: expect.stringContaining(
        'UI tools through adb (uiautomator). Appium at http://127.0.0.1:9/ does not answer: start it, then set packages.platform-android.ui to "appium"',
      ),
    });
  });

  it('answers a starting server from the adb server and its devices alone', async () => {
    const environment = {
      // An adb binary that is not there and an Appium URL where nothing answers: neither decides.
      config: {
        serial: first.serial,
        adbPath: '/nonexistent/adb',
        appiumUrl: 'http://127.0.0.1:9/',
      },
      workspaceRoot: harness.workspaceRoot,
      dataDir: harness.dataDir,
      configDir: harness.workspaceRoot,
      env: { ...process.env, ANDROID_ADB_SERVER_PORT: String(harness.bed.serverPort) },
      probes: 'deciding' as const,
    };
    expect(await toolPackage.detect(environment)).toEqual({
      enabled: true,
      reason: `adb server on 127.0.0.1:${harness.bed.serverPort}: device ${first.serial} online.`,
    });
    expect(await toolPackage.detect({ ...environment, config: { adbServerPort: 1 } })).toEqual({
      enabled: false,
      reason: 'No adb server listens on 127.0.0.1:1; run `adb start-server` and attach a device.',
    });
  });

  it('is off with the fix when no adb server runs or adb is missing', async () => {
    const environment = {
      config: { adbServerPort: 1 },
      workspaceRoot: harness.workspaceRoot,
      dataDir: harness.dataDir,
      configDir: harness.workspaceRoot,
      env: process.env,
    };
    expect((await toolPackage.detect(environment)).reason).toMatch(
      /no adb server listens on 127\.0\.0\.1:1; run `adb start-server`/,
    );
    expect(
      await toolPackage.detect({ ...environment, config: { adbPath: '/nonexistent/adb' } }),
    ).toEqual({
      enabled: false,
      reason:
        'adb not found (/nonexistent/adb); install Android platform-tools or set packages.platform-android.adbPath.',
    });
  });

  it('times out on a device that stops answering, and the next call works', async () => {
    first.stallOn(/getprop/);
    const stalled = failure(await harness.call('get_device_info', { serial: first.serial }));
    expect(stalled.code).toBe('TIMEOUT');
    expect(stalled.message).toBe(`Device ${first.serial} did not answer within 2000 ms.`);
    expect(textOf(await harness.call('get_device_info', { serial: first.serial }))).toContain(
      'Pixel 7',
    );
  });

  it('gives a clear error when the device is lost mid-call, and works again once it is back', async () => {
    const port = first.port;
    const state = first.device.state;
    first.dropOn(/dumpsys battery/);
    const lost = failure(await harness.call('get_device_info', { serial: first.serial }));
    expect(lost.code).toBe('EXECUTION_FAILED');
    expect(lost.message).toContain(first.serial);
    expect(lost.hint).toContain('adb devices');
    // The device comes back on the same port with the same state; adb reconnects to it.
    await first.close();
    const back = await AndroidSim.start({ port, state });
    (harness.bed.sims as AndroidSim[])[0] = back;
    await harness.bed.adb(['disconnect', back.serial]).catch(() => '');
    await harness.bed.waitForState(back.serial, 'device', 30_000);
    expect(textOf(await harness.call('get_device_info', { serial: back.serial }))).toContain(
      'Pixel 7',
    );
  }, 60_000);
});
