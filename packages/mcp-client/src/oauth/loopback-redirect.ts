// The loopback end of an interactive sign-in (RFC 8252 §7.3): a listener on 127.0.0.1 that takes
// exactly one redirect back from the authorization server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthorizationStep } from './oauth-provider.js';

/** Options of {@link LoopbackRedirect.start}. */
export interface LoopbackRedirectOptions {
  /** Shows the authorization URL to the user (prints it, opens a browser). */
  readonly show: (authorizationUrl: URL) => void;
  /** How long to wait for the redirect, in ms. Default 5 minutes. */
  readonly timeoutMs?: number;
  /**
   * The port to listen on (for a client registered with one exact redirect URI). Default: a
   * free one.
   */
  readonly port?: number;
}

const CALLBACK_PATH = '/callback';

/** A one-shot loopback redirect listener; {@link authorize} is the provider's browser step. */
export class LoopbackRedirect {
  /** The redirect URI to register and send. */
  readonly redirectUrl: string;
  readonly #server: Server;
  readonly #options: LoopbackRedirectOptions;
  #answer: Promise<URLSearchParams> | undefined;
  #resolve: ((query: URLSearchParams) => void) | undefined;

  private constructor(server: Server, port: number, options: LoopbackRedirectOptions) {
    this.#server = server;
    this.#options = options;
    this.redirectUrl = `http://127.0.0.1:${port}${CALLBACK_PATH}`;
  }

  /** Listens on a free port of 127.0.0.1. */
  static async start(options: LoopbackRedirectOptions): Promise<LoopbackRedirect> {
    let self: LoopbackRedirect | undefined;
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const resolve = self === undefined ? undefined : self.#resolve;
      if (request.method !== 'GET' || url.pathname !== CALLBACK_PATH || !self || !resolve) {
        response.writeHead(404).end();
        return;
      }
      response
        .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Sign-in finished. You can close this window.\n');
      self.#resolve = undefined;
      resolve(url.searchParams);
    });
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(options.port ?? 0, '127.0.0.1', () => done());
    });
    self = new LoopbackRedirect(server, (server.address() as AddressInfo).port, options);
    return self;
  }

  /** Shows `authorizationUrl` and resolves with the query of the redirect back. */
  readonly authorize: AuthorizationStep = (authorizationUrl) => {
    const timeoutMs = this.#options.timeoutMs ?? 300_000;
    this.#answer = new Promise<URLSearchParams>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#resolve = undefined;
        reject(new Error(`no sign-in completed within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      this.#resolve = (query) => {
        clearTimeout(timer);
        resolve(query);
      };
    });
    this.#options.show(authorizationUrl);
    return this.#answer;
  };

  /** Stops listening. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((done) => this.#server.close(() => done()));
  }
}
