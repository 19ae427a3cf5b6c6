import { ToolError } from '@toolsys/core-tool-registry';
import { afterAll, describe, expect, it } from 'vitest';
import { McpClient, type McpClientOptions } from '../src/index.js';
import { marked } from './marked.js';
import { modernStdio, outcome, waitFor } from './support.js';

/** The 2026-07-28 fixture server (official v2 server SDK) over stdio, direct calls against the SDK's. */
describe('direct tools/call on a 2026-07-28 stdio connection: the same outcome as the SDK client', () => {
  const clients: McpClient[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  const connect = async (options: McpClientOptions) => {
    const client = new McpClient(modernStdio(), options);
    clients.push(client);
    await client.connect({ timeoutMs: 20_000 });
    await client.listTools();
    expect(client.era).toBe('modern');
    return client;
  };
  const pair = async (options: McpClientOptions = {}) => ({
    direct: await connect({ ...options, directToolCalls: true }),
    sdk: await connect({ ...options, directToolCalls: false }),
  });

  it('for answers, invalid arguments, unknown tools and input the client cannot give', async () => {
    const { direct, sdk } = await pair();
    const calls: Array<[string, Record<string, unknown>?]> = [
      ['add', { a: 2, b: 3 }],
      ['add', { a: 'two', b: 3 }],
      ['count'],
      ['confirm'],
      ['no-such-tool'],
    ];
    for (const [tool, args] of calls) {
      expect(await outcome(direct, tool, args), tool).toEqual(await outcome(sdk, tool, args));
    }
    // Spot checks that the comparison is not between two identical failures.
    const added = await outcome(direct, 'add', { a: 2, b: 3 });
    expect('result' in added && added.result).toMatchObject({
      ok: true,
      content: marked('5'),
      data: { sum: 5 },
    });
    const confirm = await outcome(direct, 'confirm');
    expect('error' in confirm && confirm.error.code).toBe('UNSUPPORTED');
  });

  it('an input_required result continues on the SDK multi-round-trip path and completes', async () => {
    const asked: string[] = [];
    const onElicitation: McpClientOptions['onElicitation'] = async (request) => {
      asked.push(request.message);
      return { action: 'accept', content: { confirm: true } };
    };
    const { direct, sdk } = await pair({ onElicitation });
    const viaDirect = await direct.callTool('confirm', {});
    expect(viaDirect.content).toEqual([{ type: 'text', text: 'confirm=true note=none' }]);
    expect(viaDirect).toEqual(await sdk.callTool('confirm', {}));
    expect(asked).toEqual(['Really?', 'Really?']);
  });

  it('progress, and a cancellation the server sees, then the connection keeps working', async () => {
    const direct = await connect({ directToolCalls: true });
    const updates: string[] = [];
    await direct.callTool(
      'count',
      {},
      {
        onProgress: (update) =>
          updates.push(`${update.progress}/${update.total} ${update.message}`),
      },
    );
    expect(updates).toEqual(['1/3 step 1', '2/3 step 2', '3/3 step 3']);
    const controller = new AbortController();
    const waiting = direct.callTool('wait', {}, { signal: controller.signal, timeoutMs: 10_000 });
    setTimeout(() => controller.abort(new Error('stopped by the caller')), 100);
    await expect(waiting).rejects.toThrow('stopped by the caller');
    await waitFor(() => direct.stderr.text().includes('cancelled wait'));
    const timedOut = await direct.callTool('wait', {}, { timeoutMs: 200 }).catch((error) => error);
    expect(timedOut).toBeInstanceOf(ToolError);
    expect((timedOut as ToolError).code).toBe('TIMEOUT');
    expect((await direct.callTool('add', { a: 1, b: 1 })).structuredContent).toEqual({ sum: 2 });
  });
});
