import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from '@toolsys/platform';
import { initializeRequest } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeploymentConfig, resolveDeploymentConfig } from '../src/config.js';
import { composeDeployment } from '../src/deployment.js';
import { createMcpServer } from '../src/server/mcp-server.js';
import { TOOLSYS_META_KEY } from '../src/server/mcp-tool-mapping.js';
import { ToolHost } from '../src/server/tool-host.js';

/**
 * o200k tokens per tool of @playwright/mcp 0.0.83's whole `tools/list` result (25 tools, 4,418
 * tokens), as `pnpm bench catalog` measures it beside ours.
 */
const PEER_TOKENS_PER_TOOL = 176.7;
/** Ours may cost at most this share of the peer's tokens per tool. */
const BUDGET_RATIO = 0.8;
/** The whole `tools/list` of discover mode, at most. */
const DISCOVER_BUDGET = 700;
const CLIENT_SAFE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

type ListedTool = Record<string, unknown> & { name: string; title?: string };

let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-catalog-'));
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * Serves the embedded default deployment (plus `config`) and speaks raw JSON-RPC to it, so that
 * `tools/list` is counted exactly as sent, not as a client library reshapes it.
 */
async function serve(config: DeploymentConfig, capabilities: Record<string, unknown> = {}) {
  const resolved = resolveDeploymentConfig(
    { dataDir: join(scratch, `data-${Math.random().toString(36).slice(2)}`), ...config },
    { cwd: scratch, env: {} },
  );
  const deployment = await composeDeployment(resolved);
  const { connect, dispose } = createMcpServer(new ToolHost(deployment));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connect(serverSide);
  const answers = new Map<number, (message: { result?: unknown }) => void>();
  clientSide.onmessage = (message: JSONRPCMessage) => {
    if ('result' in message && typeof message.id === 'number') answers.get(message.id)?.(message);
  };
  await clientSide.start();
  let nextId = 1;
  const request = async (method: string, params?: unknown): Promise<Record<string, unknown>> => {
    const id = nextId++;
    const answered = new Promise<{ result?: unknown }>((resolve) => answers.set(id, resolve));
    const message =
      method === 'initialize'
        ? initializeRequest({ id, clientName: 'catalog-test', capabilities })
        : { jsonrpc: '2.0' as const, id, method, ...(params ? { params } : {}) };
    await clientSide.send(message as JSONRPCMessage);
    return (await answered).result as Record<string, unknown>;
  };
  await request('initialize');
  await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    request,
    async list(): Promise<{ result: Record<string, unknown>; tools: ListedTool[] }> {
      const result = await request('tools/list');
      return { result, tools: result.tools as ListedTool[] };
    },
    async close() {
      await clientSide.close();
      dispose();
      await deployment.close();
    },
  };
}

describe('the default catalog', { timeout: 120_000 }, () => {
  it('costs a model at most 0.8x the peer per tool, counted with o200k over tools/list', async () => {
    const host = await serve({});
    try {
      const { result, tools } = await host.list();
      const tokens = countTokens(JSON.stringify(result));
      expect(tools.length).toBeGreaterThanOrEqual(80);
      expect(tokens / tools.length).toBeLessThanOrEqual(PEER_TOKENS_PER_TOOL * BUDGET_RATIO);
    } finally {
      await host.close();
    }
  });

  it('keeps discover mode small', async () => {
    const host = await serve({ tools: { mode: 'discover' } });
    try {
      const { result, tools } = await host.list();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'tool_call',
        'tool_describe',
        'tool_search',
      ]);
      expect(countTokens(JSON.stringify(result))).toBeLessThanOrEqual(DISCOVER_BUDGET);
    } finally {
      await host.close();
    }
  });

  it('lists every tool with a title and a name every client accepts', async () => {
    const host = await serve({});
    try {
      const { tools } = await host.list();
      const names = tools.map((tool) => tool.name);
      expect(names).toContain('terminal_run');
      expect(new Set(names).size).toBe(names.length);
      for (const tool of tools) {
        expect(tool.name).toMatch(CLIENT_SAFE_NAME);
        expect(tool.title?.trim()).toBeTruthy();
        // A description names other tools as they are listed.
        expect(String(tool.description)).not.toMatch(/\bterminal\.[a-z]/);
      }
    } finally {
      await host.close();
    }
  });

  it('answers a call by the listed name and by the id alike', async () => {
    const host = await serve({});
    try {
      const byName = await host.request('tools/call', {
        name: 'terminal_workspaces',
        arguments: {},
      });
      const byId = await host.request('tools/call', {
        name: 'terminal.workspaces',
        arguments: {},
      });
      expect(byName.isError).toBeUndefined();
      expect(byName.content).toEqual(byId.content);
    } finally {
      await host.close();
    }
  });

  it('lists the ids as they are with tools.names "ids"', async () => {
    const host = await serve({ tools: { names: 'ids' } });
    try {
      const { tools } = await host.list();
      expect(tools.map((tool) => tool.name)).toContain('terminal.run');
    } finally {
      await host.close();
    }
  });

  it('sends output schemas and the _meta facts to a client that asks for them', async () => {
    const host = await serve({}, { experimental: { [TOOLSYS_META_KEY]: {} } });
    try {
      const { tools } = await host.list();
      const calculate = tools.find((tool) => tool.name === 'calculate');
      expect(calculate?.outputSchema).toMatchObject({ type: 'object' });
      expect(calculate?._meta).toMatchObject({ [TOOLSYS_META_KEY]: { risk: 'LOW' } });
      const lean = await serve({});
      try {
        const plain = (await lean.list()).tools.find((tool) => tool.name === 'calculate');
        expect(plain?.outputSchema).toBeUndefined();
        expect(plain?._meta).toBeUndefined();
      } finally {
        await lean.close();
      }
    } finally {
      await host.close();
    }
  });
});
