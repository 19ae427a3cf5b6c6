import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AnyToolDefinition,
  DefaultToolExecutor,
  renderResult,
  SsrfGuard,
  ToolRegistry,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { BrowserManager, type BrowserManagerOptions } from '../src/browser-manager.js';
import { createBrowserTools } from '../src/browser-tools.js';
import type { HostPolicy } from '../src/host-policy.js';

/** Real browser tools over a real Chromium, with temp workspace and data dirs. */
export interface Harness {
  readonly manager: BrowserManager;
  readonly workspace: string;
  readonly dataDir: string;
  call(
    id: string,
    args: Record<string, unknown>,
    sessionId?: string,
    signal?: AbortSignal,
  ): Promise<ToolResult>;
  /** The rendered text the model reads. */
  text(id: string, args: Record<string, unknown>, sessionId?: string): Promise<string>;
  close(): Promise<void>;
}

export const CHROMIUM = process.env.TOOLSYS_CHROMIUM ?? '/usr/bin/chromium';

/** Builds the tools; loopback is allowed so the tests can reach their local server. */
export async function createHarness(
  options: {
    maxTokens?: number;
    actionTimeoutMs?: number;
    navigationTimeoutMs?: number;
    redact?: string[];
    hostPolicy?: HostPolicy;
    manager?: Partial<BrowserManagerOptions>;
    /** More tools registered beside the browser tools (a `get_time` to ping with). */
    extraTools?: readonly AnyToolDefinition[];
  } = {},
): Promise<Harness> {
  const workspace = await mkdtemp(join(tmpdir(), 'app-browser-ws-'));
  const dataDir = await mkdtemp(join(tmpdir(), 'app-browser-data-'));
  const ssrfGuard = new SsrfGuard({ allowPrivateNetwork: ['127.0.0.1'] });
  const manager = new BrowserManager({
    executablePath: CHROMIUM,
    downloadsDir: join(workspace, 'downloads'),
    downloadsShownAs: 'downloads',
    ssrfGuard,
    ...(options.hostPolicy === undefined ? {} : { hostPolicy: options.hostPolicy }),
    ...options.manager,
  });
  const registry = new ToolRegistry();
  for (const tool of createBrowserTools({
    manager,
    ssrfGuard,
    workspaceRoot: workspace,
    artifactsDir: join(dataDir, 'app-browser'),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    ...(options.redact === undefined ? {} : { redact: options.redact }),
    ...(options.hostPolicy === undefined ? {} : { hostPolicy: options.hostPolicy }),
    ...(options.actionTimeoutMs === undefined ? {} : { actionTimeoutMs: options.actionTimeoutMs }),
    ...(options.navigationTimeoutMs === undefined
      ? {}
      : { navigationTimeoutMs: options.navigationTimeoutMs }),
  })) {
    registry.register(tool);
  }
  for (const tool of options.extraTools ?? []) registry.register(tool);
  const executor = new DefaultToolExecutor({ registry });
  const call = (
    id: string,
    args: Record<string, unknown>,
    sessionId = 'test',
    signal?: AbortSignal,
  ) => executor.execute(id, args, signal ? { sessionId, signal } : { sessionId });
  return {
    manager,
    workspace,
    dataDir,
    call,
    text: async (id, args, sessionId) => renderResult(await call(id, args, sessionId)),
    close: async () => {
      await manager.dispose();
      await rm(workspace, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The ref of the first line that contains `needle` in a rendered snapshot. */
export function refOf(text: string, needle: string): string {
  const line = text.split('\n').find((candidate) => candidate.includes(needle));
  const ref = line ? /\[ref=(e\d+)\]/.exec(line)?.[1] : undefined;
  if (!ref) throw new Error(`no ref for ${needle} in:\n${text}`);
  return ref;
}
