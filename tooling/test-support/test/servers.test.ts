import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../src/index.js';

describe('listenOnLoopback', () => {
  it('returns the port an HTTP server now answers on at 127.0.0.1', async () => {
    const server = createServer((_request, response) => response.end('hello'));
    try {
      const port = await listenOnLoopback(server);
      expect(port).toBeGreaterThan(0);
      const response = await fetch(`http://127.0.0.1:${port}/`);
      expect(await response.text()).toBe('hello');
    } finally {
      server.close();
    }
  });
});
