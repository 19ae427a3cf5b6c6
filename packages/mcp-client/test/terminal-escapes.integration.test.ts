import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpClient } from '../src/index.js';
import { marked } from './marked.js';
import { connectedClient, outcome, SCRIPTED } from './support.js';

describe('terminal escapes from a remote server (a real stdio server)', { timeout: 60_000 }, () => {
  const clients: McpClient[] = [];

  beforeAll(async () => {
    for (const directToolCalls of [true, false]) {
      clients.push(await connectedClient(SCRIPTED, directToolCalls));
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
