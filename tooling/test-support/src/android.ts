// The Android tools on a real adb server with simulated devices, in an executor with an
// environment gate, for tests and adversarial suites.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AdbTestBed, AndroidSimOptions } from '@toolsys/android-sim';
import type {
  AnyToolDefinition,
  ExecuteOptions,
  PipelineToolExecutor,
  ToolEnvironmentState,
  ToolRegistry,
  ToolResult,
} from '@toolsys/core-tool-registry';
import { createTempDir, removeTempDir } from './temp-dirs.js';

/** What the harness passes to the Android tools' factory (a subset of its options). */
export interface AndroidToolsFactoryOptions {
  /** The workspace folder (created empty). */
  workspaceRoot: string;
  /** The tools' data folder. */
  dataDir: string;
  /** The private adb server's port. */
  adbServerPort: number;
  /** The environment state the executor's gate reads. */
  environment: ToolEnvironmentState;
  /** The registry the tools are served from (their off tools are listed there). */
  registry: ToolRegistry;
  /** How long UI tools wait for the screen to settle, in ms (50: the sims settle at once). */
  settleMs: number;
  /** The device serial to use, when given. */
  serial?: string;
  /** The adb command timeout in ms, when given. */
  commandTimeoutMs?: number;
  /** The largest device output kept, in bytes, when given. */
  maxOutputBytes?: number;
}

/**
 * Builds the Android tools: `createAndroidTools` of `@toolsys/platform-android`, passed in by the
 * caller so that this package depends on no tool set.
 */
export type AndroidToolsFactory = (options: AndroidToolsFactoryOptions) => {
  readonly tools: readonly AnyToolDefinition[];
  endSession(sessionId: string): void | Promise<void>;
};

/** Options for {@link startAndroidHarness}. */
export interface AndroidHarnessOptions {
  /** One entry per simulated device to start and connect. Default one default sim. */
  sims?: AndroidSimOptions[];
  /** The device serial the tools use. Default: the tools' own choice. */
  serial?: string;
  /** The adb command timeout in ms. Default: the tools' default. */
  commandTimeoutMs?: number;
  /** The largest device output kept, in bytes. Default: the tools' default. */
  maxOutputBytes?: number;
}

/** A private adb server with sims, the Android tools in an executor with an environment gate. */
export interface AndroidHarness {
  /** The adb server and its connected sims. */
  readonly bed: AdbTestBed;
  /** The environment state the executor's gate reads. */
  readonly environment: ToolEnvironmentState;
  /** The tools' workspace folder (temporary). */
  readonly workspaceRoot: string;
  /** The tools' data folder (temporary). */
  readonly dataDir: string;
  /** The registry holding the tools. */
  readonly registry: ToolRegistry;
  /** The executor the tools run in (for calls from several sessions). */
  readonly executor: PipelineToolExecutor;
  /** Ends what the tools kept for one session (as the host does when an MCP session ends). */
  endSession(sessionId: string): Promise<void>;
  /** Runs one tool through the executor. */
  call(id: string, args?: Record<string, unknown>, options?: ExecuteOptions): Promise<ToolResult>;
  /** Kills the adb server, closes the sims and removes the temporary folders. */
  stop(): Promise<void>;
}

/**
 * Starts the real adb server on a private port with the sims, builds the tools with `createTools`
 * on it in fresh temporary folders, and registers them in an executor with an environment gate.
 * Whatever fails during start-up stops what was already started. Needs `adb` on the PATH.
 */
export async function startAndroidHarness(
  createTools: AndroidToolsFactory,
  options: AndroidHarnessOptions = {},
): Promise<AndroidHarness> {
  // Loaded here so that importing this package for a free port does not load the device or kernel.
  const { startAdbTestBed } = await import('@toolsys/android-sim');
  const { createToolExecutor, ToolEnvironmentGate, ToolEnvironmentState, ToolRegistry } =
    await import('@toolsys/core-tool-registry');
  const root = await createTempDir('toolsys-android-');
  let bed: AdbTestBed;
  try {
    bed = await startAdbTestBed({ sims: options.sims ?? [{}] });
  } catch (error) {
    await removeTempDir(root);
    throw error;
  }
  try {
    const environment = new ToolEnvironmentState();
    const workspaceRoot = join(root, 'workspace');
    const dataDir = join(root, 'data');
    await mkdir(workspaceRoot, { recursive: true });
    const registry = new ToolRegistry();
    const { tools, endSession } = createTools({
      workspaceRoot,
      dataDir,
      adbServerPort: bed.serverPort,
      environment,
      registry,
      settleMs: 50,
      ...(options.serial ? { serial: options.serial } : {}),
      ...(options.commandTimeoutMs ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
      ...(options.maxOutputBytes ? { maxOutputBytes: options.maxOutputBytes } : {}),
    });
    for (const tool of tools) registry.register(tool);
    const executor = createToolExecutor({
      registry,
      environmentGate: new ToolEnvironmentGate({ state: environment }),
    });
    return {
      bed,
      environment,
      workspaceRoot,
      dataDir,
      registry,
      executor,
      endSession: async (sessionId) => endSession(sessionId),
      call: (id, args = {}, callOptions) => executor.execute(id, args, callOptions),
      async stop() {
        await bed.stop();
        await removeTempDir(root);
      },
    };
  } catch (error) {
    await bed.stop();
    await removeTempDir(root);
    throw error;
  }
}
