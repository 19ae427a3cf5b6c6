import { describe, expect, it } from 'vitest';
import { boundedFetch } from './bounded-fetch.js';

function answer(body: string, contentType: string): () => Promise<Response> {
  return async () => new Response(body, { headers: { 'content-type': contentType } });
}

describe('boundedFetch', () => {
  it('passes a body within the limit unchanged', async () => {
    const fetch = boundedFetch(100, answer('{"ok":true}', 'application/json'));
    expect(await (await fetch('http://127.0.0.1/')).json()).toEqual({ ok: true });
  });

  it('ends a JSON body past the limit with an error naming it', async () => {
    const fetch = boundedFetch(100, answer('x'.repeat(1_000), 'application/json'));
    await expect((await fetch('http://127.0.0.1/')).text()).rejects.toThrow(
      "the server's answer is larger than 100 bytes",
    );
  });

  it('bounds each SSE event, not the stream', async () => {
    const events = Array.from({ length: 20 }, (_, index) => `data: ${index}${'y'.repeat(40)}\n\n`);
    const fetch = boundedFetch(100, answer(events.join(''), 'text/event-stream'));
    expect(await (await fetch('http://127.0.0.1/')).text()).toBe(events.join(''));
  });

  it('answers the request of an SSE event past the limit with a JSON-RPC error', async () => {
    const event = `event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{"text":"${'z'.repeat(500)}"}}\n\n`;
    const fetch = boundedFetch(100, answer(event, 'text/event-stream'));
    const text = await (await fetch('http://127.0.0.1/')).text();
    expect(text.length).toBeLessThan(400);
    expect(text).toContain(
      'data: {"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"the server\'s answer is larger than 100 bytes',
    );
  });
});
