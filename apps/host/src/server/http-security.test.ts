import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createRequestGuard, isLoopbackHost } from './http-security.js';

function request(headers: Record<string, string>, method = 'POST'): IncomingMessage {
  // A plain object with the two fields the guard reads stands in for a socket-backed request.
  return { headers, method } as unknown as IncomingMessage;
}

const url = (path: string) => new URL(path, 'http://127.0.0.1:7821');

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.4.5.6', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['192.168.1.5', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe('createRequestGuard', () => {
  const guard = createRequestGuard({ host: '127.0.0.1', port: 7821 });

  it('lets a request to the server by its own name through, with or without its own Origin', () => {
    expect(guard(request({ host: '127.0.0.1:7821' }), url('/mcp'))).toBeUndefined();
    expect(
      guard(request({ host: 'localhost:7821', origin: 'http://localhost:7821' }), url('/mcp')),
    ).toBeUndefined();
  });

  it('refuses a foreign Origin', () => {
    expect(
      guard(request({ host: '127.0.0.1:7821', origin: 'https://evil.example' }), url('/mcp')),
    ).toEqual({ status: 403, message: 'Origin "https://evil.example" is not allowed.' });
  });

  it('refuses a rebound Host name on loopback', () => {
    expect(guard(request({ host: 'evil.example:7821' }), url('/'))).toEqual({
      status: 403,
      message: 'Host "evil.example:7821" is not this server.',
    });
  });

  it('lets a configured extra origin through', () => {
    const withExtra = createRequestGuard({
      host: '127.0.0.1',
      port: 7821,
      allowedOrigins: ['https://inspector.example'],
    });
    expect(
      withExtra(
        request({ host: '127.0.0.1:7821', origin: 'https://inspector.example' }),
        url('/mcp'),
      ),
    ).toBeUndefined();
  });

  it('requires the bearer token when one is set; the page may carry it in ?token=', () => {
    const tokenGuard = createRequestGuard({ host: '0.0.0.0', port: 7821, token: 'abc' });
    const host = { host: '10.0.0.2:7821' };
    expect(tokenGuard(request(host), url('/mcp'))?.status).toBe(401);
    expect(tokenGuard(request({ ...host, authorization: 'Bearer abd' }), url('/mcp'))?.status).toBe(
      401,
    );
    expect(
      tokenGuard(request({ ...host, authorization: 'Bearer abc' }), url('/mcp')),
    ).toBeUndefined();
    expect(tokenGuard(request(host, 'GET'), url('/?token=abc'))).toBeUndefined();
    expect(tokenGuard(request(host, 'GET'), url('/api/overview?token=abc'))?.status).toBe(401);
  });
});
