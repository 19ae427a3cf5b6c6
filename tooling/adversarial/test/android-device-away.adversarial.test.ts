import { AndroidSim, startAdbTestBed } from '@toolsys/android-sim';
import { renderResult } from '@toolsys/core-tool-registry';
import { composeDeployment, type Deployment, resolveDeploymentConfig } from '@toolsys/host';
import { createTempDir, removeTempDir } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The host with the Android package on the real adb server and a simulated device that goes away:
// the model learns that the tools are off and why (not "Unknown tool", not a bare adb error), and
// nothing a caller passes can switch the tools off for the others.

type Bed = Awaited<ReturnType<typeof startAdbTestBed>>;

let bed: Bed;
let scratch: string;
const deployments: Deployment[] = [];

/** A deployment of core and Android only, composed now (as each CLI call composes its own). */
async function compose(): Promise<Deployment> {
  const config = resolveDeploymentConfig(
    {
      dataDir: `${scratch}/data`,
      packages: {
        'cs-mem': { enabled: false },
        'mcp-client': { enabled: false },
        'platform-terminal': { enabled: false },
        'app-browser': { enabled: false },
        'platform-android': { adbServerPort: bed.serverPort, commandTimeoutMs: 2_000 },
      },
    },
    { cwd: scratch, env: {} },
  );
  const deployment = await composeDeployment(config);
  deployments.push(deployment);
  return deployment;
}

/** The Android tools a deployment lists as off. */
async function androidOff(host: Deployment): Promise<string[]> {
  return (await host.registry.off.list())
    .filter((tool) => tool.owner === '@toolsys/platform-android')
    .map((tool) => tool.id);
}

async function unplug(sim: AndroidSim): Promise<void> {
  await sim.close();
  await bed.adb(['disconnect', sim.serial]).catch(() => '');
  await bed.waitForState(sim.serial, 'absent', 20_000);
}

beforeAll(async () => {
  scratch = await createTempDir('toolsys-device-away-');
  bed = await startAdbTestBed();
}, 60_000);

afterAll(async () => {
  for (const deployment of deployments) await deployment.close();
  await bed?.stop();
  await removeTempDir(scratch);
});

describe('an Android device that goes away', () => {
  it('turns its tools off in tool_search and in calls, and on again when it is back', async () => {
    const sim = bed.sims[0] as AndroidSim;
    const { port, serial } = sim;
    const state = sim.device.state;
    const host = await compose();
    expect(host.statuses.get('platform-android')?.enabled).toBe(true);
    // A caller naming a device that is not attached is told so; the tools stay on for everyone.
    const bogus = await host.executor.execute('app_list', { serial: 'R58M00000' });
    expect(!bogus.ok && bogus.error.code).toBe('NOT_FOUND');
    expect(await androidOff(host)).toEqual([]);

    await unplug(sim);
    const call = await host.executor.execute('get_device_info', {});
    expect(renderResult(call)).toMatch(
      /^Error: \[UNSUPPORTED\] get_device_info is off in this deployment \(@toolsys\/platform-android\): its device is not connected: no Android device is online \(attached: none\)\nNext: Ask the user to connect the device/,
    );
    const search = renderResult(await host.executor.execute('tool_search', { query: 'app list' }));
    expect(search).toMatch(
      /\nOff here \(calling one says how to turn it on\): app_list, [a-z_, ]+ \(@toolsys\/platform-android: its device is not connected: no Android device is online \(attached: none\)\)$/,
    );
    expect(search).not.toMatch(/^app_list \(/m);
    expect(await androidOff(host)).toHaveLength(18);

    const back = await AndroidSim.start({ port, state });
    (bed.sims as AndroidSim[])[0] = back;
    await bed.waitForState(back.serial, 'device', 30_000);
    expect(renderResult(await host.executor.execute('get_device_info', {}))).toContain(serial);
    expect(renderResult(await host.executor.execute('tool_search', { query: 'app list' }))).toMatch(
      /^app_list \(app, LOW\)/,
    );
    expect(await androidOff(host)).toEqual([]);
  }, 120_000);

  it('is reported off, not unknown, by a deployment composed while it is gone', async () => {
    const sim = bed.sims[0] as AndroidSim;
    const { port, state } = { port: sim.port, state: sim.device.state };
    await unplug(sim);
    try {
      const host = await compose();
      const call = await host.executor.execute('app_launch', { package: 'com.example.chat' });
      expect(!call.ok && call.error.code).toBe('UNSUPPORTED');
      expect(renderResult(call)).toMatch(
        /^Error: \[UNSUPPORTED\] app_launch is off in this deployment \(@toolsys\/platform-android\): its package is off: adb [\d.]+: no device online \(attached: none\); connect the device with USB debugging on \(or `adb connect HOST:PORT`\) until `adb devices` lists it as "device"\.\nNext: Ask the user to fix what the reason names, then to restart toolsys/,
      );
      const search = renderResult(await host.executor.execute('tool_search', { query: 'launch' }));
      expect(search).toContain('app_launch');
      expect(search).toContain('(@toolsys/platform-android: its package is off:');
    } finally {
      const back = await AndroidSim.start({ port, state });
      (bed.sims as AndroidSim[])[0] = back;
      await bed.waitForState(back.serial, 'device', 30_000);
    }
  }, 120_000);
});
