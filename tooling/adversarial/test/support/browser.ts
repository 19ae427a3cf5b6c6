import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserManager, createBrowserTools } from '@toolsys/app-browser';
import {
  type AnyToolDefinition,
  createToolExecutor,
  renderResult,
  ToolRegistry,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { SsrfGuard } from '@toolsys/platform';

/** The browser tools over a real Chromium, as the host composes them, with loopback allowed. */
export interface BrowserHarness {
  call(id: string, args: Record<string, unknown>, sessionId?: string): Promise<ToolResult>;
  /** The rendered text the model reads. */
  text(id: string, args: Record<string, unknown>, sessionId?: string): Promise<string>;
  close(): Promise<void>;
}

/** Builds the browser tools (and `extraTools`, e.g. `get_time` to ping with) on temp dirs. */
export async function createBrowserHarness(
  options: {
    redact?: string[];
    extraTools?: readonly AnyToolDefinition[];
    /** The tools' action time limit (default 10 s) and snapshot read limit (default 25 s). */
    actionTimeoutMs?: number;
    readTimeoutMs?: number;
  } = {},
): Promise<BrowserHarness> {
  const workspace = await mkdtemp(join(tmpdir(), 'adversarial-browser-ws-'));
  const dataDir = await mkdtemp(join(tmpdir(), 'adversarial-browser-data-'));
  const ssrfGuard = new SsrfGuard({ allowPrivateNetwork: ['127.0.0.1'] });
  const manager = new BrowserManager({
    executablePath: process.env.TOOLSYS_CHROMIUM ?? '/usr/bin/chromium',
    workspaceRoot: workspace,
    downloadsDir: join(workspace, 'downloads'),
    downloadsShownAs: 'downloads',
    ssrfGuard,
  });
  const registry = new ToolRegistry();
  registry.registerAll(
    createBrowserTools({
      manager,
      ssrfGuard,
      workspaceRoot: workspace,
      artifactsDir: join(dataDir, 'app-browser'),
      ...(options.redact === undefined ? {} : { redact: options.redact }),
      ...(options.actionTimeoutMs === undefined
        ? {}
        : { actionTimeoutMs: options.actionTimeoutMs }),
      ...(options.readTimeoutMs === undefined ? {} : { readTimeoutMs: options.readTimeoutMs }),
    }),
  );
  for (const tool of options.extraTools ?? []) registry.register(tool);
  const executor = createToolExecutor({ registry });
  const call = (id: string, args: Record<string, unknown>, sessionId = 'test') =>
    executor.execute(id, args, { sessionId });
  return {
    call,
    text: async (id, args, sessionId) => renderResult(await call(id, args, sessionId)),
    close: async () => {
      await manager.dispose();
      await rm(workspace, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A local HTTP server on 127.0.0.1 serving HTML pages by path. */
export interface PageServer {
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves `pages` (path → HTML) on a free loopback port; other paths answer 404. */
export async function servePages(pages: Readonly<Record<string, string>>): Promise<PageServer> {
  const server = createServer((request, response) => {
    const page = pages[new URL(request.url ?? '/', 'http://127.0.0.1').pathname];
    response.writeHead(page === undefined ? 404 : 200, {
      'content-type': 'text/html; charset=utf-8',
    });
    response.end(page ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A page of `count` chapters (heading, paragraph, button): past ~120 it exceeds the budget. */
export function chaptersPage(count: number): string {
  const chapters = Array.from(
    { length: count },
    (_, index) =>
      `<h2>Chapter ${index + 1}</h2><p>Chapter ${index + 1} explains how part ${index + 1} of the pipeline checks a call.</p><button>Mark chapter ${index + 1} read</button>`,
  ).join('');
  return `<!doctype html><title>Chapters</title><h1>Chapters</h1>${chapters}`;
}
