import type { AndroidSim } from '@toolsys/android-sim';
import { createAndroidTools } from '@toolsys/platform-android';
import {
  type AndroidHarness,
  type AndroidHarnessOptions,
  startAndroidHarness,
} from '@toolsys/test-support';
import { afterAll, beforeAll } from 'vitest';

/** The Android harness of a test file and its first simulated device. */
export interface AndroidFixture {
  /** The real adb server, the simulated devices and the Android tools in an executor. */
  readonly harness: AndroidHarness;
  /** The first simulated device, whose state a test sets. */
  readonly sim: AndroidSim;
}

/**
 * Starts the Android harness (the real adb server, simulated devices, the Android tools) once
 * before the calling file's tests and stops it after them, even when one fails. Read its fields
 * inside the tests; `prepare` runs once it is up (to register a tool, to warm up).
 */
export function useAndroidHarness(
  options: AndroidHarnessOptions = {},
  prepare?: (fixture: AndroidFixture) => Promise<void>,
): AndroidFixture {
  let harness: AndroidHarness | undefined;
  const fixture: AndroidFixture = {
    get harness() {
      if (harness === undefined) throw new Error('the Android harness is up only during the tests');
      return harness;
    },
    get sim() {
      return fixture.harness.bed.sims[0] as AndroidSim;
    },
  };
  beforeAll(async () => {
    harness = await startAndroidHarness(createAndroidTools, options);
    await prepare?.(fixture);
  }, 60_000);
  afterAll(async () => {
    await harness?.stop();
  });
  return fixture;
}
