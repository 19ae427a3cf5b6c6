import { probeCommandSandbox } from '@toolsys/platform';
import { afterEach, beforeEach } from 'vitest';
import {
  createHarness,
  type Harness,
} from '../../../../packages/platform-terminal/test/support/harness.js';

/** Whether the real bubblewrap sandbox can start on this machine. */
export const isSandboxAvailable = (await probeCommandSandbox()).available;

/**
 * Gives every test of the calling file a fresh terminal harness (the real tools on real PTYs over
 * a temporary workspace), disposed after the test even when it fails. Returns its reader.
 */
export function useTerminalHarness(): () => Harness {
  let harness: Harness | undefined;
  beforeEach(async () => {
    harness = await createHarness();
  });
  afterEach(async () => {
    await harness?.dispose();
    harness = undefined;
  });
  return () => {
    if (harness === undefined) throw new Error('the terminal harness exists only inside a test');
    return harness;
  };
}
