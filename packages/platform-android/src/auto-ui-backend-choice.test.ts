import { ToolErrorCode } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { AndroidDeviceError } from './adb-errors.js';
import { AppiumUiBackend, AppiumUnavailableError } from './appium/appium-ui-backend.js';
import { AutoUiBackendChoice } from './auto-ui-backend-choice.js';
import type { UiBackend } from './ui-backend.js';

// The decisions only: each call below says what happens on which backend, so no device is needed
// (the real Appium server killed mid-session is in test/appium-backend.integration.test.ts). The
// Appium backend points at a closed port and is never contacted.
function setup(probeResults: Array<string | 'appium'>) {
  const appium = new AppiumUiBackend({ appiumUrl: 'http://127.0.0.1:9' });
  const clock = { now: 0 };
  let probes = 0;
  const choice = new AutoUiBackendChoice({
    probe: async () => {
      const result = probeResults[Math.min(probes, probeResults.length - 1)] as string;
      probes += 1;
      return result === 'appium' ? appium : result;
    },
    now: () => clock.now,
  });
  return { choice, clock, probes: () => probes };
}

const unusable = (notRun: boolean) =>
  new AppiumUnavailableError(ToolErrorCode.UNSUPPORTED, 'Could not start a local Appium server.', {
    hint: 'Install it.',
    notRun,
  });

describe('ui auto', () => {
  it('uses adb while no Appium is found, and looks again only after 60 s', async () => {
    const { choice, clock, probes } = setup(['Appium is not installed', 'appium']);
    expect((await choice.get()).name).toBe('adb');
    clock.now = 59_999;
    expect((await choice.get()).name).toBe('adb');
    expect(probes()).toBe(1);
    clock.now = 60_000;
    expect((await choice.get()).name).toBe('appium');
    expect(probes()).toBe(2);
  });

  it('runs a call whose Appium is unusable through adb, with a note, and backs off for 60 s', async () => {
    const { choice, clock } = setup(['appium']);
    const call = async (backend: UiBackend) => {
      if (backend.name === 'appium') throw unusable(false);
      return 'read through adb';
    };
    expect(await choice.run(call)).toEqual({
      value: 'read through adb',
      backend: 'adb',
      note: 'Appium is not usable now (Could not start a local Appium server), so this ran through adb; Appium is tried again after 60 s.',
    });
    clock.now = 59_999;
    expect(await choice.run(async (backend) => backend.name)).toEqual({
      value: 'adb',
      backend: 'adb',
    });
    clock.now = 60_000;
    expect(await choice.run(async (backend) => backend.name)).toEqual({
      value: 'appium',
      backend: 'appium',
    });
  });

  it('repeats a request that never ran once on Appium before falling back', async () => {
    const { choice } = setup(['appium']);
    const seen: string[] = [];
    const result = await choice.run(async (backend) => {
      seen.push(backend.name);
      if (seen.length === 1) throw unusable(true);
      return 'read through a new session';
    });
    expect(seen).toEqual(['appium', 'appium']);
    expect(result).toEqual({ value: 'read through a new session', backend: 'appium' });
  });

  it('returns an ordinary Appium failure as it is and stays on Appium', async () => {
    const { choice } = setup(['appium']);
    const refused = new AndroidDeviceError(ToolErrorCode.NOT_FOUND, 'No locator finds it.', {
      hint: 'Call ui_dump.',
    });
    const seen: string[] = [];
    await expect(
      choice.run(async (backend) => {
        seen.push(backend.name);
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(seen).toEqual(['appium']);
    expect((await choice.get()).name).toBe('appium');
  });
});
