import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AndroidDevice } from '@toolsys/platform-android';
import { AppiumUiBackend } from '@toolsys/platform-android';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * Issue 30 item 14 (Appium part): the Appium page source was not bounded in bytes — the WebDriver
 * client buffered the whole answer before the parser's bounds applied, so a hostile app (or a
 * server) answering hundreds of megabytes grew the host's memory by as much. A real HTTP server on
 * 127.0.0.1 speaks enough WebDriver to open a session, then streams a page source with no end.
 */

// The backend only reads `serial` from the device: no call reaches adb here.
const device = { serial: 'emulator-5554' } as AndroidDevice;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

let server: Server;
let url: string;
/** Bytes of page source the server managed to send before the client hung up, per request. */
const sent: number[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const json = (value: unknown) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ value }));
    };
    if (request.method === 'POST' && request.url === '/session') {
      json({ sessionId: 's1', capabilities: { platformName: 'Android' } });
    } else if (request.url?.endsWith('/source')) {
      // `{"value":"<hierarchy>xxxx…` and never the end, until the client goes away.
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"value":"<hierarchy rotation=\\"0\\">');
      let total = 0;
      const index = sent.push(0) - 1;
      const pump = () => {
        while (!response.destroyed && total < 200 * 1024 * 1024) {
          total += CHUNK.length;
          sent[index] = total;
          if (!response.write(CHUNK)) {
            response.once('drain', pump);
            return;
          }
        }
      };
      response.on('close', () => {
        sent[index] = total;
      });
      pump();
    } else {
      json(null);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the Appium page source is bounded in bytes', () => {
  it('refuses a page source past the dump bound and stops reading it', async () => {
    const backend = new AppiumUiBackend({ appiumUrl: url, commandTimeoutMs: 60_000 });
    try {
      const error = await backend.readHierarchy(device).then(
        () => undefined,
        (caught: unknown) => caught as { code?: string; message?: string },
      );
      expect(error?.code).toBe('EXECUTION_FAILED');
      expect(error?.message).toMatch(/^Appium's page source of this screen is too large/);
      // The connection was dropped near the bound (socket buffers add a few MB at most),
      // not after the 200 MB the server offers.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(sent).toHaveLength(1);
      expect(sent[0]).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await backend.dispose();
    }
  }, 60_000);
});
