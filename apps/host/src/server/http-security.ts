import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Whether an address is loopback only (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** Options for {@link createRequestGuard}. */
export interface RequestGuardOptions {
  /** The address the server is bound to. */
  host: string;
  /** The port it listens on (the real one when bound to port 0). */
  port: number;
  /** Browser origins allowed besides the server's own. */
  allowedOrigins?: readonly string[];
  /** `Host` headers (host:port) accepted besides the server's own, e.g. a load balancer's. */
  allowedHosts?: readonly string[];
  /** Bearer token every request must carry; none when undefined. */
  token?: string | undefined;
}

/** Why a request is refused: HTTP status and a message. */
export interface GuardRefusal {
  readonly status: 401 | 403;
  readonly message: string;
}

/**
 * Checks requests against DNS rebinding and unauthorised use: the `Host` header must name the
 * server when it is bound to loopback, an `Origin` header must be the server's own (or an allowed
 * one), and the bearer token must match when one is set. Returns undefined when the request
 * may proceed.
 */
export function createRequestGuard(
  options: RequestGuardOptions,
): (request: IncomingMessage, url: URL) => GuardRefusal | undefined {
  const { host, port, token } = options;
  const loopback = isLoopbackHost(host);
  const ownHosts = new Set([
    ...['127.0.0.1', 'localhost', '[::1]'].map((name) => `${name}:${port}`),
    ...(options.allowedHosts ?? []).map((name) => name.toLowerCase()),
  ]);
  const origins = new Set((options.allowedOrigins ?? []).map((origin) => origin.toLowerCase()));
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  return (request, url) => {
    const hostHeader = (request.headers.host ?? '').toLowerCase();
    if (loopback && !ownHosts.has(hostHeader)) {
      return { status: 403, message: `Host "${hostHeader}" is not this server.` };
    }
    const origin = request.headers.origin;
    // Same origin is the validated Host; on other addresses the bearer token is what protects.
    const sameOrigin = origin?.toLowerCase() === `http://${hostHeader}`;
    if (origin !== undefined && !sameOrigin && !origins.has(origin.toLowerCase())) {
      return { status: 403, message: `Origin "${origin}" is not allowed.` };
    }
    if (expected) {
      const given = request.headers.authorization ?? pageToken(request, url);
      const actual = Buffer.from(given ?? '');
      if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
        return { status: 401, message: 'A valid bearer token is required.' };
      }
    }
    return undefined;
  };
}

/** The dashboard page itself may carry the token in `?token=` (a browser cannot set headers). */
function pageToken(request: IncomingMessage, url: URL): string | undefined {
  if (request.method !== 'GET' || url.pathname !== '/') return undefined;
  const token = url.searchParams.get('token');
  return token === null ? undefined : `Bearer ${token}`;
}
