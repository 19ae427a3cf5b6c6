import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createBoundedFetch,
  GitHubRedirectError,
  GitHubResponseTooLargeError,
  GitHubStalledError,
} from './bounded-fetch.js';

let server: Server;
let root: string;
const answers = new Map<string, (response: ServerResponse) => void>();

beforeAll(async () => {
  server = createServer((request, response) => {
    const answer = answers.get(request.url ?? '');
    if (answer) answer(response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  answers.set('/small', (response) => response.writeHead(200).end('{"ok":true}'));
  answers.set('/endless', (response) => {
    response.writeHead(200);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const pump = () => {
      while (!response.destroyed && response.write(chunk)) {}
      if (!response.destroyed) response.once('drain', pump);
    };
    pump();
  });
  answers.set('/declared', (response) => {
    response.writeHead(200, { 'content-length': String(3 * 1024 ** 3) });
    response.write('[');
  });
  answers.set('/moved', (response) =>
    response.writeHead(301, { location: 'https://api.github.com/repositories/1/x' }).end('{}'),
  );
  answers.set('/stalls', (response) => {
    response.writeHead(200);
    response.write('[');
  });
  answers.set('/trickles', (response) => {
    response.writeHead(200);
    let sent = 0;
    const timer = setInterval(() => {
      sent += 1;
      if (sent === 5 || response.destroyed) {
        clearInterval(timer);
        response.end(']');
      } else response.write(sent === 1 ? '[' : ' ');
    }, 100);
  });
  answers.set('/unchanged', (response) => response.writeHead(304, { etag: '"e"' }).end());
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('createBoundedFetch', () => {
  const bounded = createBoundedFetch({ maxBytes: 1024 * 1024 });

  it('returns an answer within the limit as it came, with its URL', async () => {
    const response = await bounded(`${root}/small`);
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${root}/small`);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('stops reading an endless body at the limit', async () => {
    const error = await bounded(`${root}/endless`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitHubResponseTooLargeError);
    expect((error as Error).message).toBe(
      "GitHub's answer to GET /endless was larger than 1,048,576 bytes, so reading stopped",
    );
  });

  it('refuses a declared length over the limit before reading', async () => {
    await expect(bounded(`${root}/declared`)).rejects.toBeInstanceOf(GitHubResponseTooLargeError);
  });

  it('does not follow a redirect and names where it pointed', async () => {
    const error = await bounded(`${root}/moved`, { method: 'GET', redirect: 'follow' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(GitHubRedirectError);
    expect(error).toMatchObject({
      status: 301,
      location: 'https://api.github.com/repositories/1/x',
      request: 'GET /moved',
    });
  });

  it('passes a 304 through for conditional requests', async () => {
    const response = await bounded(`${root}/unchanged`);
    expect(response.status).toBe(304);
    expect(response.headers.get('etag')).toBe('"e"');
  });
});

describe('createBoundedFetch: idle limit', () => {
  it('an answer that stops after its first byte ends with GitHubStalledError naming the time', async () => {
    const bounded = createBoundedFetch({ maxBytes: 1024, idleTimeoutMs: 300 });
    const error = await bounded(`${root}/stalls`).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(GitHubStalledError);
    expect((error as GitHubStalledError).message).toMatch(
      /^GitHub sent nothing for 0\.3 s while answering GET \/stalls, so the request was stopped after 0\.\d s$/,
    );
  });

  it('an answer that keeps sending within the idle limit is read whole', async () => {
    const bounded = createBoundedFetch({ maxBytes: 1024, idleTimeoutMs: 300 });
    const response = await bounded(`${root}/trickles`);
    expect(await response.text()).toBe('[   ]');
  });
});
