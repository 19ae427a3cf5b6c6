import { ToolError, type ToolResult } from '@toolsys/core-tool-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpServerConfig, toToolResult } from '../src/index.js';
import { marked } from './marked.js';
import { FIXTURES } from './support.js';

type Outcome = { result: ToolResult } | { error: { code: string; message: string } };

async function outcome(client: McpClient, tool: string): Promise<Outcome> {
  try {
    return { result: await client.callToolWith(tool, {}, toToolResult, { timeoutMs: 10_000 }) };
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    return { error: { code: error.code, message: error.message } };
  }
}

const scripted: McpServerConfig = {
  name: 'scripted',
  transport: 'stdio',
  command: process.execPath,
  args: [FIXTURES.scripted],
};

describe('terminal escapes from a remote server (a real stdio server)', { timeout: 60_000 }, () => {
  const clients: McpClient[] = [];

  beforeAll(async () => {
    for (const directToolCalls of [true, false]) {
      const client = new McpClient(scripted, { directToolCalls });
      await client.connect({ timeoutMs: 20_000 });
      await client.listTools();
      clients.push(client);
    }
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  it('strips them from text content, keeping tabs and newlines', async () => {
    for (const client of clients) {
      expect(await outcome(client, 'ansi-text')).toEqual({
        result: { ok: true, content: marked('ok\tdone\nline 2') },
      });
    }
  });

  it('strips them from the text of an isError result', async () => {
    for (const client of clients) {
      const failed = await outcome(client, 'ansi-is-error');
      expect(failed).toMatchObject({
        result: {
          ok: false,
          error: {
            code: 'EXECUTION_FAILED',
            message: `MCP tool "ansi-is-error" on server "scripted" reported an error:\n${marked('failed: disk full')}`,
          },
        },
      });
    }
  });

  it('strips them from the message of a JSON-RPC error answer', async () => {
    for (const client of clients) {
      expect(await outcome(client, 'ansi-error')).toEqual({
        error: {
          code: 'EXECUTION_FAILED',
          message:
            // One line: the remote message cannot start a line of its own.
            'MCP server "scripted" answered tools/call "ansi-error" with an error: boom at\\tline\\n2',
        },
      });
    }
  });
});
