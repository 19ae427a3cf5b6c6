import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { listenOnLoopback } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedRequest } from '../src/guarded-request.js';
import { SsrfGuard } from '../src/ssrf-guard.js';

// Two real servers on 127.0.0.1: `origin` redirects to `target`, which records what it received.
// 127.0.0.1 and localhost are different origins, and the ports differ too.
let origin: Server;
let target: Server;
let received: IncomingHttpHeaders | undefined;
let originPort = 0;
let targetPort = 0;

beforeAll(async () => {
  target = createServer((request, response) => {
    received = request.headers;
    response.end('landed');
  });
  targetPort = await listenOnLoopback(target);
  origin = createServer((request, response) => {
    const host = request.url === '/same' ? '127.0.0.1' : 'localhost';
    const port = request.url === '/same' ? originPort : targetPort;
    if (request.url === '/landing') {
      received = request.headers;
      response.end('landed');
      return;
    }
    response.writeHead(302, { location: `http://${host}:${port}/landing` });
    response.end();
  });
  originPort = await listenOnLoopback(origin);
});

afterAll(async () => {
  await new Promise((resolve) => origin?.close(resolve));
  await new Promise((resolve) => target?.close(resolve));
});

const guard = new SsrfGuard({ allowPrivateNetwork: ['127.0.0.1', 'localhost', '::1'] });
const callerHeaders = {
  'X-Api-Key': 'FAKE_1',
  'X-Auth-Token': 'FAKE_2',
  Authorization: 'Bearer FAKE_3',
  Cookie: 'a=FAKE_4',
  Accept: 'text/plain',
  'Accept-Language': 'de',
  'User-Agent': 'toolsys-test',
};

async function fetchVia(path: string) {
  received = undefined;
  const response = await guardedRequest({
    url: `http://127.0.0.1:${originPort}${path}`,
    guard,
    headers: callerHeaders,
  });
  response.body.resume();
  return response;
}

describe('guardedRequest redirects', () => {
  it('forwards only the safe caller headers to another origin', async () => {
    const response = await fetchVia('/cross');
    expect(response.status).toBe(200);
    expect(response.redirects).toHaveLength(1);
    expect(received).toMatchObject({
      accept: 'text/plain',
      'accept-language': 'de',
      'user-agent': 'toolsys-test',
    });
    expect(JSON.stringify(received)).not.toContain('FAKE_');
  });

  it('keeps every caller header on a same-origin redirect', async () => {
    await fetchVia('/same');
    expect(received).toMatchObject({ 'x-api-key': 'FAKE_1', authorization: 'Bearer FAKE_3' });
  });
});
