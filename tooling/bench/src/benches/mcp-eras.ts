import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  createToolExecutor,
  type PipelineToolExecutor,
  RiskAwareToolGate,
  ToolCircuitBreaker,
  ToolPermissionManager,
  ToolRateLimiter,
  ToolRegistry,
  ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import {
  createMcpTools,
  McpClient,
  McpManager,
  type McpStdioServerConfig,
  toToolResult,
} from '@toolsys/mcp-client';

/** The protocol era a connection speaks. */
export type Era = '2025-11-25' | '2026-07-28';

/** The eras the mcp bench measures, in the order it prints them. */
export const ERAS: readonly Era[] = ['2025-11-25', '2026-07-28'];

/** The SDK's own stdio server of one era, with the `echo` tool every side calls. */
export interface EraPeer {
  readonly era: Era;
  /** Human-readable name of the server, for the report. */
  readonly label: string;
  /** The server's config: its name in the manager, the command, the era pinned. */
  readonly config: McpStdioServerConfig;
}

/** Path of server-everything's entry (a server of the v1 SDK, 2025 era only). */
function everythingEntry(): string {
  const require = createRequire(import.meta.url);
  return join(
    dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist/index.js',
  );
}

/** Path of the v2 SDK's own echo server (`serveStdio` with `--stdio`). */
export const SDK_V2_PEER = join(import.meta.dirname, '..', '..', 'peers', 'sdk-v2-echo-server.mjs');

/**
 * The peer of each era over stdio: server-everything (the v1 SDK's reference server) for
 * 2025-11-25, the v2 SDK's `serveStdio` echo server for 2026-07-28. Each config pins its era, so a
 * connection that settles on another one is an error, not a silent fallback.
 */
export function eraPeers(): Record<Era, EraPeer> {
  return {
    '2025-11-25': {
      era: '2025-11-25',
      label: 'server-everything (v1 SDK) stdio',
      config: {
        name: 'everything',
        transport: 'stdio',
        command: process.execPath,
        args: [everythingEntry(), 'stdio'],
        protocolVersion: '2025-11-25',
      },
    },
    '2026-07-28': {
      era: '2026-07-28',
      label: 'v2 SDK serveStdio echo',
      config: {
        name: 'sdk-v2',
        transport: 'stdio',
        command: process.execPath,
        args: [SDK_V2_PEER, '--stdio'],
        protocolVersion: '2026-07-28',
      },
    },
  };
}

/** `mcp_call` behind the full v3 pipeline (risk gate, limiter, breaker, traces) over `manager`. */
export function pipelineFor(manager: McpManager): PipelineToolExecutor {
  const registry = new ToolRegistry();
  registry.registerAll(createMcpTools({ manager }), { policy: 'REJECT', owner: 'bench' });
  return createToolExecutor({
    registry,
    gate: new RiskAwareToolGate(
      new ToolPermissionManager({ policy: { MEDIUM: 'allow', HIGH: 'allow' } }),
    ),
    rateLimiter: new ToolRateLimiter(),
    circuitBreaker: new ToolCircuitBreaker(),
    traces: new ToolTraceRecorder(),
    runPolicies: {},
  });
}

/** The three sides of the mcp bench: the raw SDK client, `McpClient` alone, `mcp_call`. */
export type Side = 'raw' | 'client' | 'ours';

/** The sides in the order the report lists them. */
export const SIDES: readonly Side[] = ['raw', 'client', 'ours'];

/** The echo call every side makes. */
export const ECHO_ARGS = { message: 'bench' } as const;

/**
 * Milliseconds from nothing running to the first echo answer, for one side against a fresh
 * process of `peer`: the raw v2 SDK client (its version negotiation pinned to the era) on its
 * own stdio transport, `McpClient.connect` then `callToolWith`, or `mcp_call` through a new
 * manager and pipeline (which connects, lists the tools and checks the arguments against them).
 * The connection is closed after the answer, outside the measured time.
 */
export async function firstCallMs(peer: EraPeer, side: Side): Promise<number> {
  const { config } = peer;
  const started = performance.now();
  if (side === 'raw') {
    const client = new Client(
      { name: 'toolsys-bench', version: '0.0.0' },
      {
        versionNegotiation:
          peer.era === '2026-07-28' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' },
      },
    );
    try {
      await client.connect(
        new StdioClientTransport({
          command: config.command,
          args: [...(config.args ?? [])],
          stderr: 'ignore',
        }),
      );
      const result = await client.callTool({ name: 'echo', arguments: { ...ECHO_ARGS } });
      if (result.isError) throw new Error(`raw first echo failed on ${peer.label}`);
      return performance.now() - started;
    } finally {
      await client.close().catch(() => undefined);
    }
  }
  if (side === 'client') {
    const client = new McpClient(config);
    try {
      await client.connect();
      const result = await client.callToolWith('echo', { ...ECHO_ARGS }, toToolResult);
      if (!result.ok) throw new Error(`McpClient first echo failed on ${peer.label}`);
      return performance.now() - started;
    } finally {
      await client.close().catch(() => undefined);
    }
  }
  const manager = new McpManager({ servers: [config] });
  try {
    const result = await pipelineFor(manager).execute('mcp_call', {
      server: config.name,
      tool: 'echo',
      arguments: { ...ECHO_ARGS },
    });
    if (!result.ok) throw new Error(`first mcp_call failed: ${result.error.message}`);
    return performance.now() - started;
  } finally {
    await manager.close().catch(() => undefined);
  }
}
