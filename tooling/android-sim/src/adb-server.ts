import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { AndroidSim, type AndroidSimOptions } from './android-sim.js';

const run = promisify(execFile);

/** Where the adb binary is: `ADB` or `adb` on PATH. */
export function adbBinary(): string {
  return process.env.ADB ?? 'adb';
}

/** A free TCP port on 127.0.0.1 outside 5555-5585 (the adb server adopts those as emulators). */
export async function freePort(): Promise<number> {
  for (;;) {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    await new Promise((resolve) => server.close(resolve));
    if (port < 5555 || port > 5585) return port;
  }
}

/** Runs the adb client against a private server port; resolves with its stdout (rejects on failure). */
export async function runAdb(
  serverPort: number,
  args: readonly string[],
  timeoutMs = 20_000,
): Promise<string> {
  const { stdout } = await run(adbBinary(), ['-P', String(serverPort), ...args], {
    timeout: timeoutMs,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, ANDROID_ADB_SERVER_PORT: String(serverPort) },
  });
  return stdout;
}

/** One private adb server and the sims connected to it. */
export interface AdbTestBed {
  /** The adb server's port (pass it as `-P` or ANDROID_ADB_SERVER_PORT). */
  readonly serverPort: number;
  /** The connected sims, in the order they were asked for. */
  readonly sims: readonly AndroidSim[];
  /** Runs `adb -P <port> ARGS…`. */
  adb(args: readonly string[]): Promise<string>;
  /** Connects another sim and waits until it is `device`. */
  addSim(options?: AndroidSimOptions): Promise<AndroidSim>;
  /** Waits until a serial has the given state in `adb devices` (`device`, `offline`, or `absent`). */
  waitForState(
    serial: string,
    state: 'device' | 'offline' | 'absent',
    timeoutMs?: number,
  ): Promise<void>;
  /** Kills the adb server on its port and closes every sim; safe to call twice. */
  stop(): Promise<void>;
}

/** Options for {@link startAdbTestBed}. */
export interface AdbTestBedOptions {
  /** One entry per sim to start and connect. Default one default sim. */
  sims?: readonly AndroidSimOptions[];
  /**
   * The adb server's port, chosen beforehand (e.g. with {@link freePort}) by a caller that must be
   * able to stop the server even while start-up is still running. Default a free port.
   */
  serverPort?: number;
}

async function devices(serverPort: number): Promise<Map<string, string>> {
  const out = await runAdb(serverPort, ['devices']);
  const states = new Map<string, string>();
  for (const line of out.split('\n').slice(1)) {
    const [serial, state] = line.trim().split('\t');
    if (serial && state) states.set(serial, state);
  }
  return states;
}

/**
 * Starts a private adb server (`adb -P PORT start-server`) and the sims, connects each
 * (`adb connect 127.0.0.1:PORT`) and waits until they are online. Call `stop()` in afterAll: it
 * runs `adb -P PORT kill-server` and closes the sims even when a test failed. If start-up itself
 * fails, everything started so far is stopped before the error is rethrown.
 */
export async function startAdbTestBed(options: AdbTestBedOptions = {}): Promise<AdbTestBed> {
  const serverPort = options.serverPort ?? (await freePort());
  const sims: AndroidSim[] = [];
  let stopped = false;
  const bed: AdbTestBed = {
    serverPort,
    sims,
    adb: (args) => runAdb(serverPort, args),
    async addSim(simOptions = {}) {
      const sim = await AndroidSim.start(simOptions);
      sims.push(sim);
      await runAdb(serverPort, ['connect', sim.serial]);
      await bed.waitForState(sim.serial, 'device');
      return sim;
    },
    async waitForState(serial, state, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const current = (await devices(serverPort)).get(serial) ?? 'absent';
        if (current === state) return;
        if (Date.now() > deadline) {
          throw new Error(`${serial} is "${current}", not "${state}", after ${timeoutMs} ms`);
        }
        if (state === 'device' && current === 'absent')
          await runAdb(serverPort, ['connect', serial]).catch(() => '');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await runAdb(serverPort, ['kill-server']).catch(() => '');
      await Promise.all(sims.map((sim) => sim.close()));
    },
  };
  try {
    await runAdb(serverPort, ['start-server']);
    for (const simOptions of options.sims ?? [{}]) await bed.addSim(simOptions);
  } catch (error) {
    await bed.stop();
    throw error;
  }
  return bed;
}
