import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyBudget, type ReadJsonOptions, readJson } from './read-json.js';

const servers: Server[] = [];

/** A real HTTP server on 127.0.0.1 answering with what readJson made of the body. */
async function serve(options: ReadJsonOptions): Promise<number> {
  const server = createServer(async (request, response) => {
    const outcome = await readJson(request, options);
    response.writeHead(outcome.ok ? 200 : outcome.status, { connection: 'close' });
    response.end(JSON.stringify(outcome));
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}

/** POSTs `pieces` as a chunked body (no Content-Length), pausing between them. */
function post(port: number, pieces: string[]): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        headers: { 'transfer-encoding': 'chunked' },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (text: string) => {
          body += text;
        });
        response.on('end', () => done({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', fail);
    const [first, ...rest] = pieces;
    request.write(first ?? '');
    let index = 0;
    const next = () => {
      if (index >= rest.length) return void request.end();
      request.write(rest[index++] as string, () => setImmediate(next));
    };
    setImmediate(next);
  });
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

describe('readJson', () => {
  it('parses a JSON body', async () => {
    const port = await serve({ maxBytes: 1024 });
    const reply = await post(port, ['{"a":', '1}']);
    expect(JSON.parse(reply.body)).toEqual({ ok: true, value: { a: 1 } });
  });

  it('parses a body past 1 MiB (in a worker thread) to the same value', async () => {
    const port = await serve({ maxBytes: 64 * 1024 * 1024 });
    const text = '\u0001'.repeat(4 * 1024 * 1024);
    const pieces = ['{"text":"', '\\u0001'.repeat(4 * 1024 * 1024), '"}'];
    const reply = await post(port, pieces);
    expect(JSON.parse(reply.body)).toEqual({ ok: true, value: { text } });
  });

  it('answers 400 for a large body that is not JSON', async () => {
    const port = await serve({ maxBytes: 64 * 1024 * 1024 });
    const reply = await post(port, ['{"text":"', 'x'.repeat(2 * 1024 * 1024)]);
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body).message).toBe('Parse error: the body is not valid JSON.');
  });

  it('answers 413 naming the limit when a chunked body grows past it, on the same connection', async () => {
    const port = await serve({ maxBytes: 1024 });
    const reply = await post(port, ['{"a":"', 'x'.repeat(800), 'x'.repeat(800), '"}']);
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.body).message).toContain(
      'Message too large: more than the limit of 1024 bytes for one',
    );
  });

  it('answers 503 with a retry delay when the shared budget is spent, and gives it back', async () => {
    const budget = new BodyBudget(100);
    const port = await serve({ maxBytes: 1024, budget });
    const reply = await post(port, ['{"a":"', 'x'.repeat(200), '"}']);
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.body)).toMatchObject({ retryAfterSeconds: 1 });
    expect(budget.used).toBe(0);
    expect((await post(port, ['{"b":2}'])).status).toBe(200);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const port = await serve({});
    const reply = await post(port, ['{"a":']);
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body).message).toBe('Parse error: the body is not valid JSON.');
  });
});
