import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  createToolExecutor,
  type PipelineToolExecutor,
  type ToolExecutorOptions,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import {
  createMcpTools,
  type McpAdHocPolicy,
  McpManager,
  type McpManagerOptions,
  type McpServerConfig,
  type McpStdioServerConfig,
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
};

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
export async function startEverythingHttp(
  mode: 'streamableHttp' | 'sse',
): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, ['--import', FIXTURES.loopbackOnly, EVERYTHING, mode], {
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
