// A hostile 2026-07-28 server cannot get past the client's direct tools/call (the fast path of a
// stdio connection): a wrong, missing or non-string resultType, results that are no object, have
// invalid content or are huge, input_required with nothing to ask, and answers for ids it was
// never asked all end as the SDK client's own request path ends them, in bounded time, and the
// connection keeps working. Every request carries the era's _meta envelope.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolError } from '@toolsys/core-tool-registry';
import { McpClient, type McpServerConfig, toToolResult } from '@toolsys/mcp-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHostileModernServer } from './support/mcp-hostile-modern-server.js';

let scratch: string;
let config: McpServerConfig;
let direct: McpClient;
let sdk: McpClient;

/** The `_meta` keys every 2026-07-28 request and notification of this client carries. */
const ENVELOPE = [
  'io.modelcontextprotocol/clientCapabilities',
  'io.modelcontextprotocol/clientInfo',
  'io.modelcontextprotocol/protocolVersion',
].join(',');

async function connect(directToolCalls: boolean): Promise<McpClient> {
  const client = new McpClient(config, { directToolCalls });
  await client.connect({ timeoutMs: 10_000 });
  await client.listTools({ timeoutMs: 5_000 });
  expect(client.era).toBe('modern');
  return client;
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-mcp-direct-'));
  config = {
    name: 'hostile',
    transport: 'stdio',
    command: process.execPath,
    args: [writeHostileModernServer(scratch), 'stdio'],
    env: { HOSTILE_MODE: 'direct' },
  };
  direct = await connect(true);
  sdk = await connect(false);
});

afterAll(async () => {
  await direct?.close();
  await sdk?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** What a call came to (its tool result or its error's code and message), and how long it took. */
async function outcome(client: McpClient, tool: string, timeoutMs = 10_000) {
  const started = performance.now();
  try {
    const result = await client.callToolWith(tool, { n: 1 }, toToolResult, { timeoutMs });
    return { result, ms: performance.now() - started };
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    return { error: { code: error.code, message: error.message }, ms: performance.now() - started };
  }
}

/** The `meta` lines the server logged for `method`. */
function metaLines(client: McpClient, method: string): string[] {
  return client.stderr
    .text()
    .split('\n')
    .filter((line) => line.startsWith(`meta ${method} `));
}

describe('direct tools/call against a hostile 2026-07-28 server over stdio', () => {
  it('fails every broken result as the SDK client does, never as a success', async () => {
    for (const tool of [
      'wrong-type',
      'no-type',
      'number-type',
      'bad-content',
      'huge-invalid',
      'ask-empty',
    ]) {
      const fast = await outcome(direct, tool);
      const slow = await outcome(sdk, tool);
      expect(fast.error, tool).toBeDefined();
      expect(fast.error, tool).toEqual(slow.error);
      expect(fast.ms, tool).toBeLessThan(8_000);
    }
    const wrongType = await outcome(direct, 'wrong-type');
    expect(wrongType.error?.message).toContain("Unsupported result type 'partial'");
  });

  it('takes a 4 MiB valid result as the SDK client does', async () => {
    const fast = await outcome(direct, 'huge');
    expect(fast.result?.ok).toBe(true);
    expect(fast.result).toEqual((await outcome(sdk, 'huge')).result);
  });

  it('sends the era envelope with every call and cancellation, on ids of its own', async () => {
    await outcome(direct, 'echo');
    const calls = metaLines(direct, 'tools/call');
    expect(calls.length).toBeGreaterThan(0);
    for (const line of calls)
      expect(line).toMatch(new RegExp(`^meta tools/call "toolsys-\\d+" ${ENVELOPE}$`));
    const timedOut = await outcome(direct, 'slow', 300);
    expect(timedOut.error?.code).toBe('TIMEOUT');
    const id = /"toolsys-\d+"/.exec(metaLines(direct, 'tools/call').at(-1) ?? '')?.[0];
    await expect
      .poll(() => metaLines(direct, 'notifications/cancelled'))
      .toContain(`meta notifications/cancelled ${id} ${ENVELOPE}`);
    // The SDK's own path sends the same envelope (numbered ids).
    await outcome(sdk, 'echo');
    expect(metaLines(sdk, 'tools/call').at(-1)).toMatch(
      new RegExp(`^meta tools/call \\d+ ${ENVELOPE}$`),
    );
  });

  it('a result that is no object is refused by the transport itself, on both paths alike', async () => {
    // Not a JSON-RPC answer at all: the stdio transport reports it as garbage and drops it, so the
    // call ends at its time limit, reported with what the server wrote.
    const fresh = await Promise.all([connect(true), connect(false)]);
    const [fastClient, slowClient] = fresh as [McpClient, McpClient];
    try {
      const [fast, slow] = await Promise.all([
        outcome(fastClient, 'not-object', 500),
        outcome(slowClient, 'not-object', 500),
      ]);
      expect(fast.error).toBeDefined();
      expect(fast.error).toEqual(slow.error);
      expect(fast.ms).toBeLessThan(5_000);
    } finally {
      await Promise.all(fresh.map((client) => client.close()));
    }
  });

  it('answers for ids it never asked neither settle a call nor reach the next one', async () => {
    const forged = await outcome(direct, 'forge');
    expect(forged.result).toMatchObject({ ok: true });
    expect(JSON.stringify(forged.result)).toContain('real');
    // The forged answer for the next id came before that call was made: it was dropped.
    const next = await outcome(direct, 'echo');
    expect(JSON.stringify(next.result)).toContain('echo {\\"n\\":1}');
    expect(JSON.stringify(next.result)).not.toContain('forged');
    expect(direct.isConnected).toBe(true);
  });
});
