/**
 * The two sides of the browser bench as MCP stdio peers: ours (`toolsys serve --stdio` with
 * app-browser) and @playwright/mcp, with and without its settle wait; calling a tool and stopping
 * a peer with the Chromium it started.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { descendantPids } from '../cleanup.js';
import { REPO_ROOT } from '../processes.js';

const CHROMIUM = '/usr/bin/chromium';
/** Flags that keep Chromium's own traffic off the (closed) network; both sides get them. */
const QUIET_CHROMIUM_ARGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `theirsNoSettle`: the peer again with `--timeout-settle 0`, to show its raw click speed. */
export type Side = 'ours' | 'theirs' | 'theirsNoSettle';

/** One side, connected over MCP stdio. */
export interface Peer {
  readonly side: Side;
  readonly label: string;
  readonly client: Client;
  readonly transport: StdioClientTransport;
}

/** Text the model reads from a tools/call result: every text part, joined. */
function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return content
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('\n');
}

/** Calls a tool of `peer` and returns its text; throws when the result is an error. */
export async function call(
  peer: Peer,
  tool: string,
  args: Record<string, unknown>,
): Promise<string> {
  const result = await peer.client.callTool({ name: tool, arguments: args }, undefined, {
    timeout: 120_000,
  });
  const text = textOf(result);
  if (result.isError) throw new Error(`${peer.label} ${tool} failed: ${text.slice(0, 500)}`);
  return text;
}

async function connect(
  side: Side,
  label: string,
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<Peer> {
  const transport = new StdioClientTransport({
    command,
    args,
    cwd,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  // Drain stderr so a chatty server never blocks on a full pipe; keep the tail for errors.
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-2_000);
  });
  const client = new Client({ name: 'toolsys-bench', version: '0.0.0' });
  try {
    await client.connect(transport, { timeout: 120_000 });
  } catch (error) {
    await transport.close().catch(() => {});
    throw new Error(`${label} did not start: ${(error as Error).message}\n${tail}`);
  }
  return { side, label, client, transport };
}

/** Starts our side: `toolsys serve --stdio` with only app-browser on. */
export async function startOurs(scratch: string): Promise<Peer> {
  const config = join(scratch, 'toolsys.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      workspaceRoot: join(scratch, 'workspace'),
      dataDir: join(scratch, 'data'),
      permissions: { MEDIUM: 'allow' },
      packages: {
        'mcp-client': { enabled: false },
        'cs-mem': { enabled: false },
        'platform-terminal': { enabled: false },
        'platform-android': { enabled: false },
        'app-github': { enabled: false },
        'app-browser': {
          executablePath: CHROMIUM,
          headless: true,
          allowPrivateNetwork: ['127.0.0.1'],
          // The largest real page takes Chromium many seconds to walk on a loaded machine.
          actionTimeoutMs: 60_000,
          navigationTimeoutMs: 60_000,
        },
      },
      // The bench measures the browser, not the per-tool rate limits.
      tools: {
        runPolicies: {
          browser_snapshot: { ratePerMinute: null, timeoutMs: 180_000 },
          browser_click: { ratePerMinute: null, timeoutMs: 180_000 },
          browser_navigate: { ratePerMinute: null, timeoutMs: 180_000 },
        },
      },
    }),
  );
  return connect(
    'ours',
    'toolsys serve --stdio (app-browser)',
    process.execPath,
    [
      '--conditions=@toolsys/source',
      '--import',
      'tsx',
      join(REPO_ROOT, 'apps/host/src/cli.ts'),
      'serve',
      '--stdio',
      '--config',
      config,
    ],
    join(REPO_ROOT, 'apps/host'),
    { INIT_CWD: scratch },
  );
}

/** Starts @playwright/mcp on the same Chromium; `settle` false adds `--timeout-settle 0`. */
export async function startTheirs(scratch: string, origin: string, settle: boolean): Promise<Peer> {
  const require = createRequire(import.meta.url);
  const cli = join(dirname(require.resolve('@playwright/mcp/package.json')), 'cli.js');
  const config = join(scratch, 'playwright-mcp.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      browser: {
        browserName: 'chromium',
        isolated: true,
        launchOptions: { executablePath: CHROMIUM, headless: true, args: QUIET_CHROMIUM_ARGS },
      },
      network: { allowedOrigins: [origin] },
    }),
  );
  return connect(
    settle ? 'theirs' : 'theirsNoSettle',
    settle ? '@playwright/mcp 0.0.83' : '@playwright/mcp 0.0.83 --timeout-settle 0',
    process.execPath,
    [
      cli,
      '--headless',
      '--isolated',
      '--executable-path',
      CHROMIUM,
      '--allowed-origins',
      origin,
      '--output-dir',
      join(scratch, settle ? 'playwright-output' : 'playwright-output-nosettle'),
      '--config',
      config,
      // The largest real page takes many seconds to walk on a loaded machine (both sides).
      '--timeout-action',
      '60000',
      ...(settle ? [] : ['--timeout-settle', '0']),
    ],
    scratch,
    // Never fetch a browser of its own.
    {
      PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
      PLAYWRIGHT_BROWSERS_PATH: join(scratch, 'no-browsers'),
    },
  );
}

/** Ends a peer: closes the connection, then any process it left behind (its Chromium). */
export async function stop(peer: Peer): Promise<void> {
  const pid = peer.transport.pid;
  const below = pid === null ? [] : descendantPids(pid);
  await peer.client.close().catch(() => {});
  for (const child of [...below].reverse()) {
    try {
      process.kill(child, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
