// `POST /api/mcp/login`: the dashboard's sign-in to a remote MCP server, for the viewer's own
// principal. The authorization-code flow with PKCE runs as `toolsys mcp login` does, its redirect
// received on a loopback port of 127.0.0.1 — so only a browser on the host's own machine can
// finish it, and the route answers only a viewer connected over loopback.
import type { IncomingMessage } from 'node:http';
import {
  LoopbackRedirect,
  type McpServerConfig,
  oauthStoreOf,
  signInToServer,
  stripTerminalControls,
} from '@toolsys/mcp-client';
import { isLoopbackHost } from '../server/http-security.js';
import { principalKey } from '../server/principal.js';

/** How long a started sign-in waits for the browser. */
const SIGN_IN_TIMEOUT_MS = 5 * 60_000;
/** How long the route waits for the authorization URL (or for a server that needs no sign-in). */
const URL_WAIT_MS = 20_000;

/** What the route answers: the URL to open, or that the server needs no sign-in, or a refusal. */
export type DashboardLoginAnswer =
  | {
      readonly status: 200;
      readonly body:
        | { readonly url: string }
        | { readonly signedIn: boolean; readonly tools: number };
    }
  | { readonly status: 400 | 404 | 409 | 502; readonly body: { readonly error: string } };

/** The sign-ins under way, by principal and server: a second click gets the same URL. */
const underWay = new Map<string, Promise<DashboardLoginAnswer>>();

/** Starts (or joins) `principal`'s sign-in to `server` from the dashboard. */
export async function startDashboardLogin(
  request: IncomingMessage,
  server: McpServerConfig,
  options: { readonly dataDir: string; readonly principal: Parameters<typeof principalKey>[0] },
): Promise<DashboardLoginAnswer> {
  if (server.transport === 'stdio') {
    return {
      status: 400,
      body: { error: `MCP server "${server.name}" is a local program: it needs no sign-in.` },
    };
  }
  if (!isLoopbackHost((request.socket.remoteAddress ?? '').replace(/^::ffff:/i, ''))) {
    return {
      status: 409,
      body: {
        error: `Signing in from the dashboard needs a browser on the host's machine (the sign-in comes back to 127.0.0.1). Run \`toolsys mcp login ${server.name}\` there instead.`,
      },
    };
  }
  const principal = principalKey(options.principal);
  const key = `${principal}\u0000${server.name}`;
  const running = underWay.get(key);
  if (running) return running;
  const answer = begin(server as HttpServerConfig, options.dataDir, principal, () =>
    underWay.delete(key),
  );
  underWay.set(key, answer);
  // A refusal or a finished sign-in is not kept: the next click starts again.
  void answer.then((result) => {
    if (!('url' in result.body)) underWay.delete(key);
  });
  return answer;
}

/** A server reached over HTTP (the only kind with a sign-in). */
type HttpServerConfig = Parameters<typeof signInToServer>[0];

async function begin(
  server: HttpServerConfig,
  dataDir: string,
  principal: string,
  done: () => void,
): Promise<DashboardLoginAnswer> {
  let showUrl: (url: string) => void = () => {};
  const shown = new Promise<string>((resolve) => {
    showUrl = resolve;
  });
  const port = server.oauth?.redirectPort;
  const redirect = await LoopbackRedirect.start({
    ...(port === undefined ? {} : { port }),
    timeoutMs: SIGN_IN_TIMEOUT_MS,
    show: (authorizationUrl) => showUrl(authorizationUrl.href),
  });
  const signIn = signInToServer(server, {
    store: oauthStoreOf(dataDir, principal, server.name),
    interactive: { authorize: redirect.authorize, redirectUrl: redirect.redirectUrl },
    timeoutMs: SIGN_IN_TIMEOUT_MS + 10_000,
  }).finally(() => {
    done();
    return redirect.close();
  });
  // The sign-in goes on in the background once its URL is known; its end is seen by the server
  // (its tools appear) and by the page's next listing.
  signIn.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const first = await Promise.race([
    shown.then((url) => ({ url }) as const),
    signIn.then(
      ({ tools, signedIn }) => ({ signedIn, tools: tools.length }) as const,
      (error: unknown) => ({ error: stripTerminalControls((error as Error).message) }) as const,
    ),
    new Promise<{ readonly error: string }>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            error: `MCP server "${server.name}" gave no sign-in address within ${URL_WAIT_MS / 1000} s.`,
          }),
        URL_WAIT_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
  if ('error' in first)
    return {
      status: 502,
      body: { error: `Sign-in to MCP server "${server.name}" failed: ${first.error}` },
    };
  return { status: 200, body: first };
}
