import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  createToolExecutor,
  type PipelineToolExecutor,
  ToolError,
  type ToolExecutorOptions,
  ToolRegistry,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import {
  createMcpTools,
  type McpAdHocPolicy,
  McpClient,
  McpManager,
  type McpManagerOptions,
  type McpServerConfig,
  type McpStdioServerConfig,
  toToolResult,
} from '../src/index.js';

/** Entry script of @modelcontextprotocol/server-everything (from the npm registry). */
export const EVERYTHING = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);
/** Entry script of @modelcontextprotocol/server-memory. */
export const MEMORY = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url),
);
/** Entry script of @modelcontextprotocol/server-filesystem. */
export const FILESYSTEM = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url),
);
/** Fixture scripts. */
export const FIXTURES = {
  hanging: fileURLToPath(new URL('./fixtures/hanging-server.mjs', import.meta.url)),
  garbage: fileURLToPath(new URL('./fixtures/garbage-server.mjs', import.meta.url)),
  loopbackOnly: fileURLToPath(new URL('./fixtures/loopback-only.mjs', import.meta.url)),
  scripted: fileURLToPath(new URL('./fixtures/scripted-server.mjs', import.meta.url)),
  modern: fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url)),
};

/** The 2026-07-28-only fixture server over stdio. */
export function modernStdio(name = 'modern'): McpStdioServerConfig {
  return { name, transport: 'stdio', command: process.execPath, args: [FIXTURES.modern, 'stdio'] };
}

/** A server-everything HTTP process bound to 127.0.0.1. */
export interface HttpServerProcess {
  readonly port: number;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts server-everything in an HTTP mode on 127.0.0.1 and a free port. It binds every interface
 * by default; the loopback-only preload forces 127.0.0.1 and reports the port.
 */
export function startEverythingHttp(mode: 'streamableHttp' | 'sse'): Promise<HttpServerProcess> {
  return startListening(['--import', FIXTURES.loopbackOnly, EVERYTHING, mode]);
}

/** Starts the 2026-07-28-only fixture server (v2 server SDK) over HTTP on 127.0.0.1. */
export function startModernHttp(): Promise<HttpServerProcess> {
  return startListening([FIXTURES.modern, 'http']);
}

/** Runs node with `args` and waits for the "TOOLSYS_LISTENING <port>" line on its stderr. */
async function startListening(args: string[]): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let buffered = '';
      const timer = setTimeout(
        () => reject(new Error(`server did not start: ${buffered}`)),
        20_000,
      );
      child.stderr?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const match = /TOOLSYS_LISTENING (\d+)/.exec(buffered);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with ${code}: ${buffered}`));
      });
    });
    return { port, child, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Waits until `check` is true, polling; fails after `timeoutMs`. For events, not for policies. */
export async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A deployment-like setup: manager + the three tools in a registry, run by the v2 executor. */
export interface Harness {
  readonly manager: McpManager;
  readonly registry: ToolRegistry;
  readonly executor: PipelineToolExecutor;
  close(): Promise<void>;
}

/** Builds a {@link Harness}; close it in `afterEach`/`afterAll` (stops every child process). */
export function createHarness(
  options: {
    servers?: McpServerConfig[];
    adHoc?: McpAdHocPolicy;
    managerOptions?: Omit<McpManagerOptions, 'servers'>;
    executorOptions?: Omit<ToolExecutorOptions, 'registry'>;
  } = {},
): Harness {
  const manager = new McpManager({ ...options.managerOptions, servers: options.servers ?? [] });
  const registry = new ToolRegistry();
  registry.registerAll(createMcpTools({ manager, adHoc: options.adHoc ?? 'allow' }), {
    policy: 'REJECT',
    owner: '@toolsys/mcp-client',
  });
  const executor = createToolExecutor({ registry, ...options.executorOptions });
  return { manager, registry, executor, close: () => manager.close() };
}

/** server-everything over stdio. */
export function everythingStdio(name = 'everything'): McpStdioServerConfig {
  return { name, transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] };
}

/**
 * The hanging fixture server over stdio as `name`; `env` sets its switches (`HANG_LIST_AFTER`,
 * `EXTRA_TOOL_NAMES`).
 */
export function hangingStdio(name: string, env?: Record<string, string>): McpStdioServerConfig {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    args: [FIXTURES.hanging],
    ...(env === undefined ? {} : { env }),
  };
}

/** The scripted fixture server over stdio. */
export const SCRIPTED: McpServerConfig = {
  name: 'scripted',
  transport: 'stdio',
  command: process.execPath,
  args: [FIXTURES.scripted],
};

/** A connected client with its catalog listed, as the manager leaves one. */
export async function connectedClient(
  config: McpServerConfig,
  directToolCalls: boolean,
): Promise<McpClient> {
  const client = new McpClient(config, { directToolCalls });
  await client.connect({ timeoutMs: 20_000 });
  await client.listTools();
  return client;
}

/** What a call came to: its ToolResult, or the error it failed with (code and message). */
export type Outcome = { result: ToolResult } | { error: { code: string; message: string } };

/** Calls `tool` on `client` and returns its outcome; rethrows anything but a ToolError. */
export async function outcome(
  client: McpClient,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<Outcome> {
  try {
    return { result: await client.callToolWith(tool, args, toToolResult, { timeoutMs: 10_000 }) };
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    return { error: { code: error.code, message: error.message } };
  }
}
