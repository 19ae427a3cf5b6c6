import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AdbTestBed, type AndroidSimOptions, startAdbTestBed } from '@toolsys/android-sim';
import {
  createToolExecutor,
  type ExecuteOptions,
  type PipelineToolExecutor,
  ToolEnvironmentGate,
  ToolEnvironmentState,
  ToolRegistry,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { createAndroidTools } from '../src/index.js';

/** A private adb server with sims, the 18 tools in a v3 executor with an environment gate, and temp dirs. */
export interface AndroidHarness {
  readonly bed: AdbTestBed;
  readonly environment: ToolEnvironmentState;
  readonly workspaceRoot: string;
  readonly dataDir: string;
  readonly registry: ToolRegistry;
  /** The executor the tools run in (for calls from several sessions). */
  readonly executor: PipelineToolExecutor;
  /** Ends what the tools kept for one session (as the host does when an MCP session ends). */
  endSession(sessionId: string): Promise<void>;
  call(id: string, args?: Record<string, unknown>, options?: ExecuteOptions): Promise<ToolResult>;
  stop(): Promise<void>;
}

/** Starts the harness; `stop()` kills the adb server, closes the sims and removes the temp dirs. */
export async function startAndroidHarness(
  options: {
    sims?: AndroidSimOptions[];
    serial?: string;
    commandTimeoutMs?: number;
    maxOutputBytes?: number;
  } = {},
): Promise<AndroidHarness> {
  const root = await mkdtemp(join(tmpdir(), 'platform-android-'));
  let bed: AdbTestBed;
  try {
    bed = await startAdbTestBed({ sims: options.sims ?? [{}] });
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  // Anything failing from here on must still stop the adb server and the sims just started.
  try {
    const environment = new ToolEnvironmentState();
    const workspaceRoot = join(root, 'workspace');
    const dataDir = join(root, 'data');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(workspaceRoot, { recursive: true });
    const { tools, endSession } = createAndroidTools({
      workspaceRoot,
      dataDir,
      adbServerPort: bed.serverPort,
      environment,
      settleMs: 50,
      ...(options.serial ? { serial: options.serial } : {}),
      ...(options.commandTimeoutMs ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
      ...(options.maxOutputBytes ? { maxOutputBytes: options.maxOutputBytes } : {}),
    });
    const registry = new ToolRegistry();
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
        await rm(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await bed.stop();
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

/** The text of a success, or a readable dump of a failure (for assertion messages). */
export function textOf(result: ToolResult): string {
  return result.ok ? result.content : `Error: [${result.error.code}] ${result.error.message}`;
}
