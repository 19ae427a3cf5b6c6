import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ConfirmationRequest,
  type ConfirmFunction,
  createToolExecutor,
  type ExecuteOptions,
  RiskAwareToolGate,
  renderResult,
  ToolPermissionManager,
  ToolRegistry,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { RootfsManager, type RootfsManagerOptions } from '../../src/rootfs-manager.js';
import { TerminalManager, type TerminalManagerOptions } from '../../src/terminal-manager.js';
import { createTerminalTools } from '../../src/tools/index.js';

/** A real deployment of the terminal tools over a temporary workspace. */
export interface Harness {
  readonly workspace: string;
  readonly dataDir: string;
  readonly manager: TerminalManager;
  readonly rootfs: RootfsManager;
  /** Every confirmation asked, in order. */
  readonly asked: ConfirmationRequest[];
  call(id: string, args: unknown, options?: ExecuteOptions): Promise<ToolResult>;
  /** Data of a successful call; fails the test with the rendered error otherwise. */
  data<T = Record<string, unknown>>(id: string, args: unknown): Promise<T & { content: string }>;
  dispose(): Promise<void>;
}

/**
 * Builds the tools on a fresh temp workspace; dispose ends every process they started. The user
 * is played by `confirm` (default: "allow once" to everything); with `riskGate` the calls also pass
 * the risk gate of a real permission manager with the default policy, as in a deployment.
 */
export async function createHarness(
  options: {
    manager?: Partial<TerminalManagerOptions>;
    rootfs?: Partial<RootfsManagerOptions>;
    /** Answers confirmations; null: nobody can answer. */
    confirm?: ConfirmFunction | null;
    riskGate?: boolean;
    /** With `riskGate`: the deployment's per-risk policy (default LOW allow, MEDIUM and HIGH ask). */
    policy?: Partial<Record<'LOW' | 'MEDIUM' | 'HIGH', 'allow' | 'ask' | 'deny'>>;
  } = {},
): Promise<Harness> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'terminal-test-')));
  const workspace = join(base, 'workspace');
  const dataDir = join(base, 'data');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(workspace, { recursive: true });
  await mkdir(dataDir, { recursive: true });
  const rootfs = new RootfsManager({ baseDir: join(dataDir, 'rootfs'), ...options.rootfs });
  const manager = new TerminalManager({
    workspaceRoot: workspace,
    rootfsDir: rootfs.directory('debian'),
    ...options.manager,
  });
  const registry = new ToolRegistry();
  registry.registerAll(createTerminalTools({ manager, rootfs }));
  const asked: ConfirmationRequest[] = [];
  const answer =
    options.confirm === undefined ? async () => 'allow_once' as const : options.confirm;
  const confirm: ConfirmFunction | undefined =
    answer === null
      ? undefined
      : (request, signal) => {
          asked.push(request);
          return answer(request, signal);
        };
  const executor = createToolExecutor({
    registry,
    ...(confirm ? { confirm } : {}),
    ...(options.riskGate
      ? {
          gate: new RiskAwareToolGate(
            new ToolPermissionManager({
              ...(confirm ? { confirm } : {}),
              ...(options.policy ? { policy: options.policy } : {}),
            }),
          ),
        }
      : {}),
  });
  const call = (id: string, args: unknown, callOptions?: ExecuteOptions) =>
    executor.execute(id, args, callOptions);
  return {
    workspace,
    dataDir,
    manager,
    rootfs,
    asked,
    call,
    async data<T>(id: string, args: unknown) {
      const result = await call(id, args);
      if (!result.ok) throw new Error(`${id} failed: ${renderResult(result)}`);
      return { ...(result.data as T), content: result.content };
    },
    async dispose() {
      await manager.dispose();
      await rootfs.dispose();
      await rm(base, { recursive: true, force: true });
    },
  };
}
