import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { SsrfGuard } from '@toolsys/platform';
import type { HostPolicy } from './host-policy.js';

/** Text of the page a refused request gets; it names the reason so the model can read it. */
export const BLOCKED_PAGE_PREFIX = 'Blocked by the network policy of the browser tools:';

const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'proxy-authorization',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

/**
 * A loopback HTTP proxy every browser request goes through, so the SSRF policy holds for every
 * hop: typed URLs, links, redirects, subresources and `CONNECT` tunnels (https, websockets). Each
 * connection is made to an address the guard checked (no DNS change between check and connect).
 */
export class GuardProxy {
  readonly #guard: SsrfGuard;
  readonly #hostPolicy: HostPolicy | undefined;
  readonly #server: Server;
  readonly #sockets = new Set<Duplex>();

  constructor(guard: SsrfGuard, hostPolicy?: HostPolicy) {
    this.#guard = guard;
    this.#hostPolicy = hostPolicy;
    this.#server = createServer((request, response) => {
      void this.#forward(request, response);
    });
    this.#server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.#tunnel(request, socket, head);
    });
    this.#server.on('connection', (socket: Socket) => this.#track(socket));
  }

  /** Starts listening on 127.0.0.1 and returns the proxy URL (`http://127.0.0.1:PORT`). */
  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no port');
    return `http://127.0.0.1:${address.port}`;
  }

  /** Stops listening and ends every open connection. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #track(socket: Duplex): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    socket.on('error', () => undefined);
  }

  async #forward(
    request: IncomingMessage,
    response: import('node:http').ServerResponse,
  ): Promise<void> {
    let url: URL;
    try {
      url = new URL(request.url ?? '');
    } catch {
      response.writeHead(400, { 'content-type': 'text/plain' }).end('bad proxy request');
      return;
    }
    let address: string;
    try {
      const refusal = this.#hostPolicy?.(url.hostname);
      if (refusal !== undefined) throw new Error(`Refused to connect: ${refusal}.`);
      this.#guard.checkUrl(url);
      const addresses = await this.#guard.resolve(url.hostname);
      address = (addresses[0] as { address: string }).address;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const body = `<!doctype html><title>Blocked</title><p>${escapeHtml(`${BLOCKED_PAGE_PREFIX} ${reason}`)}</p>`;
      response.writeHead(403, { 'content-type': 'text/html; charset=utf-8' }).end(body);
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) headers[name] = value;
    }
    const upstream = httpRequest(
      {
        host: address,
        port: url.port === '' ? 80 : Number(url.port),
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers,
        setHost: false,
      },
      (answer) => {
        const answerHeaders: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase()))
            answerHeaders[name] = value;
        }
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders);
        answer.pipe(response);
      },
    );
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const reason = `Could not reach ${url.host}: ${error.code ?? error.message}.`;
      response
        .writeHead(502, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><title>Unreachable</title><p>${escapeHtml(reason)}</p>`);
    });
    request.pipe(upstream);
  }

  async #tunnel(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    this.#track(socket);
    const target = request.url ?? '';
    const separator = target.lastIndexOf(':');
    const host = separator > 0 ? target.slice(0, separator) : target;
    const port = separator > 0 ? Number(target.slice(separator + 1)) : 443;
    let address: string;
    try {
      if (this.#hostPolicy?.(host) !== undefined) throw new Error('host refused');
      const addresses = await this.#guard.resolve(host);
      address = (addresses[0] as { address: string }).address;
    } catch {
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(port, address, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    this.#track(upstream);
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (character) => `&#${character.charCodeAt(0)};`);
}
