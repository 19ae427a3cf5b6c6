import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AdbTestBed, startAdbTestBed } from '@toolsys/android-sim';
import {
  createToolExecutor,
  type ExecuteOptions,
  type PipelineToolExecutor,
  ToolEnvironmentGate,
  ToolEnvironmentState,
  ToolRegistry,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { createAndroidTools } from '@toolsys/platform-android';

/** The real adb server on a private port with one simulated device, and the Android tools on it. */
export interface AndroidHarness {
  readonly bed: AdbTestBed;
  readonly registry: ToolRegistry;
  readonly executor: PipelineToolExecutor;
  endSession(sessionId: string): Promise<void>;
  call(id: string, args?: Record<string, unknown>, options?: ExecuteOptions): Promise<ToolResult>;
  stop(): Promise<void>;
}

/** Starts the bed and the tools (as the package's integration harness does); `stop()` ends both. */
export async function startAndroidHarness(
  options: { maxOutputBytes?: number } = {},
): Promise<AndroidHarness> {
  const root = await mkdtemp(join(tmpdir(), 'toolsys-adversarial-android-'));
  const bed = await startAdbTestBed({ sims: [{}] }).catch(async (error: unknown) => {
    await rm(root, { recursive: true, force: true });
    throw error;
  });
  await mkdir(join(root, 'workspace'), { recursive: true });
  const environment = new ToolEnvironmentState();
  const { tools, endSession } = createAndroidTools({
    workspaceRoot: join(root, 'workspace'),
    dataDir: join(root, 'data'),
    adbServerPort: bed.serverPort,
    environment,
    settleMs: 50,
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
    registry,
    executor,
    endSession: async (sessionId) => endSession(sessionId),
    call: (id, args = {}, callOptions) => executor.execute(id, args, callOptions),
    async stop() {
      await bed.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The text of a success, or a readable line for a failure (for assertion messages). */
export function textOf(result: ToolResult): string {
  return result.ok ? result.content : `Error: [${result.error.code}] ${result.error.message}`;
}
