import { AndroidSim } from '@toolsys/android-sim';
import { renderResult } from '@toolsys/core-tool-registry';
import { type AndroidHarness, startAndroidHarness, textOf } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAndroidTools } from '../src/index.js';

// One sim on a private adb server: it goes away between calls and comes back on the same port.
describe('a device that goes away between calls', () => {
  let harness: AndroidHarness;

  beforeAll(async () => {
    harness = await startAndroidHarness(createAndroidTools, { commandTimeoutMs: 2_000 });
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it('answers as a tool that is off, naming the package and how to bring the device back, until it is back', async () => {
    const first = harness.bed.sims[0] as AndroidSim;
    const { port, serial } = first;
    const state = first.device.state;
    expect(textOf(await harness.call('get_device_info'))).toContain('Pixel 7');
    expect(await harness.registry.off.list()).toEqual([]);

    await first.close();
    await harness.bed.adb(['disconnect', serial]).catch(() => '');
    await harness.bed.waitForState(serial, 'absent', 20_000);
    const gone = await harness.call('app_list');
    expect(renderResult(gone)).toBe(
      'Error: [UNSUPPORTED] app_list is off in this deployment (@toolsys/platform-android): its device is not connected: no Android device is online (attached: none)\nNext: Ask the user to connect the device with USB debugging on (or `adb connect HOST:PORT`) until `adb devices` lists it as "device"; the next call of an Android tool finds it. Until then, use another tool.',
    );
    expect(!gone.ok && gone.error.details).toEqual({
      toolId: 'app_list',
      owner: '@toolsys/platform-android',
      off: true,
    });
    // Every tool of the package is listed as off (tool_search reads this list), with its description.
    const off = await harness.registry.off.list();
    expect(off).toHaveLength(18);
    expect(off.find((tool) => tool.id === 'ui_tap')).toMatchObject({
      owner: '@toolsys/platform-android',
      reason: 'its device is not connected: no Android device is online (attached: none)',
      description: expect.stringContaining('Taps'),
    });

    const back = await AndroidSim.start({ port, state });
    (harness.bed.sims as AndroidSim[])[0] = back;
    await harness.bed.waitForState(back.serial, 'device', 30_000);
    expect(textOf(await harness.call('get_device_info'))).toContain('Pixel 7');
    expect(await harness.registry.off.list()).toEqual([]);
  }, 90_000);
});
