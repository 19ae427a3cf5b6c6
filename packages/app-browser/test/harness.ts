import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AnyToolDefinition,
  createToolExecutor,
  renderResult,
  ToolRegistry,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { untrustedMarkers } from '@toolsys/core-tool-registry/text';
import { SsrfGuard } from '@toolsys/platform';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { BrowserManager, type BrowserManagerOptions } from '../src/browser-manager.js';
import { createBrowserTools } from '../src/browser-tools.js';
import type { HostPolicy } from '../src/host-policy.js';
import { type PageServer, startPageServer } from './support.js';

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
  /**
   * The rendered text the model reads, without the web-page markers and notice (see
   * {@link unmarked}); tests of the markers themselves read `call`.
   */
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
    /** Where downloads go, relative to the workspace. Default `downloads`. */
    downloadsFolder?: string;
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
    workspaceRoot: workspace,
    downloadsDir: join(workspace, options.downloadsFolder ?? 'downloads'),
    downloadsShownAs: options.downloadsFolder ?? 'downloads',
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
  const executor = createToolExecutor({ registry });
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
    text: async (id, args, sessionId) => unmarked(renderResult(await call(id, args, sessionId))),
    close: async () => {
      await manager.dispose();
      await rm(workspace, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** What the tests of one file share: one harness, one page server, and the running test's session. */
export interface HarnessFixture {
  readonly harness: Harness;
  readonly server: PageServer;
  /** A session of its own for each test (`s1`, `s2` …): tests share the browser, not its state. */
  readonly sessionId: string;
}

/**
 * Starts one harness and one page server (serving `pages` besides the fixtures) before the tests
 * of the calling file and closes both after them; the hooks are registered here.
 */
export function useHarness(
  options: { pages?: Readonly<Record<string, string>>; sessionPrefix?: string } = {},
): HarnessFixture {
  let harness: Harness | undefined;
  let server: PageServer | undefined;
  let tests = 0;
  beforeAll(async () => {
    harness = await createHarness();
    server = await startPageServer(options.pages);
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
    await server?.close();
  });
  beforeEach(() => {
    tests += 1;
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useHarness: used before its beforeAll hook ran');
    return value;
  };
  return {
    get harness() {
      return started(harness);
    },
    get server() {
      return started(server);
    },
    get sessionId() {
      return `${options.sessionPrefix ?? 's'}${tests}`;
    },
  };
}

const MARKERS = untrustedMarkers('web-page');

/**
 * A result's text without the web-page markers and their notice, the tab's line joined with the
 * title line after it (`Tab t1: "Title" — http://…`): what the tests compare, the page's lines
 * and the tools' own lines in their order.
 */
export function unmarked(text: string): string {
  const lines = text
    .split('\n')
    .filter((line) => line !== MARKERS.open && line !== MARKERS.close && line !== MARKERS.notice);
  const joined: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (/^Tab t\d+:$/.test(line) && index + 1 < lines.length) {
      joined.push(`${line} ${lines[index + 1]}`);
      index++;
    } else joined.push(line);
  }
  return joined.join('\n');
}

/**
 * The ref of the first line that contains `needle` in a rendered snapshot: its own `[ref=eN]`,
 * or, on a line of prose, the inline link whose text contains it (`[needle](eN)`).
 */
export function refOf(text: string, needle: string): string {
  const line = text.split('\n').find((candidate) => candidate.includes(needle));
  const inline = line
    ? [...line.matchAll(/\[([^\]]*)\]\((e\d+)[ )]/g)].find((match) => match[1]?.includes(needle))
    : undefined;
  const ref = line ? (inline?.[2] ?? /\[ref=(e\d+)\]/.exec(line)?.[1]) : undefined;
  if (!ref) throw new Error(`no ref for ${needle} in:\n${text}`);
  return ref;
}
