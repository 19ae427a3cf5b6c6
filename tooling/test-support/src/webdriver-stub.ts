// A WebDriver server with one session and a page source chosen by the test, for the Appium client's
// tests: it speaks just enough of the protocol (W3C WebDriver, JSON `{ value }` bodies) to get as far
// as the page source.
import { createServer, type ServerResponse } from 'node:http';

/** A running {@link startWebDriverStub} server. */
export interface WebDriverStub {
  /** The server's root, `http://127.0.0.1:<port>`, to pass as the Appium URL. */
  readonly url: string;
  /** Drops every open connection and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a WebDriver server on 127.0.0.1 that opens session `s1` for any `POST /session`, hands
 * every page-source request (`GET …/source`) to `answerSource`, and answers anything else with a
 * `null` value.
 */
export async function startWebDriverStub(
  answerSource: (response: ServerResponse) => void,
): Promise<WebDriverStub> {
  const server = createServer((request, response) => {
    if (request.url?.endsWith('/source')) {
      answerSource(response);
      return;
    }
    const isNewSession = request.method === 'POST' && request.url === '/session';
    const value = isNewSession
      ? { sessionId: 's1', capabilities: { platformName: 'Android' } }
      : null;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ value }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
