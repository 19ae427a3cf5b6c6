import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuthResource } from '../server/oauth-resource.js';
import type { Principal } from '../server/principal.js';
import { CALLBACK_PATH, createOAuthSignIn, type OAuthSignIn } from './dashboard-oauth-sign-in.js';
import {
  cookieHeader,
  DashboardSessions,
  parseCookies,
  SESSION_COOKIE,
} from './dashboard-sessions.js';
import type { DashboardSignIns } from './sealed-sign-ins.js';
import { SIGNED_IN_PAGE, signInPage } from './sign-in-page.js';

/** The cookie that binds a started OAuth sign-in to the browser that started it. */
const LOGIN_COOKIE = 'toolsys_dashboard_login';
/** The header every POST of a cookie sign-in must carry (its session's CSRF value). */
export const CSRF_HEADER = 'x-toolsys-csrf';
/** The largest sign-in form body. */
const MAX_FORM_BYTES = 8 * 1024;

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};

/** Who views a dashboard request, and the CSRF value of their sign-in (cookie sign-ins only). */
export interface DashboardVisitor {
  readonly principal: Principal;
  readonly csrf?: string;
}

/** Options for {@link createDashboardAccess}. */
export interface DashboardAccessOptions {
  /** Whether the dashboard needs sign-in: named tokens or OAuth are configured. */
  readonly required: boolean;
  /** The principal of a named token, if it is one. */
  readonly tokenPrincipal?: (token: string) => Principal | undefined;
  /** Sign-in with the identity provider, when the deployment has a dashboard client. */
  readonly oauth?: OAuthSignIn;
  /** Mark cookies Secure (the public URL is https:). */
  readonly secureCookies: boolean;
  /**
   * The sign-in store. Default: a new one in this process (sign-ins then end with it and hold on
   * this replica only); a deployment passes {@link dashboardSignInsFor}.
   */
  readonly sessions?: DashboardSignIns;
}

/** Signs people in to the dashboard and tells who views each of its requests. */
export interface DashboardAccess {
  /**
   * Serves `/auth/*` and finds who views any other dashboard request: a cookie sign-in (whose
   * POSTs must carry its CSRF value), else the bearer `identify` finds. Undefined once it has
   * answered the request itself (the sign-in page, a 401, a refused POST).
   */
  visitor(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    identify: () => Promise<Principal | undefined>,
  ): Promise<DashboardVisitor | undefined>;
}

/**
 * The dashboard's sign-in for a server: needed when named tokens or OAuth are configured; by named
 * token, and by authorization code + PKCE when there is a dashboard client and a public URL.
 */
export function dashboardAccessFor(server: {
  tokenPrincipal?: ((request: IncomingMessage, url: URL) => Principal | undefined) | undefined;
  auth?: OAuthResource | undefined;
  clientId?: string | undefined;
  publicUrl?: string | undefined;
  /** The sign-in store; pass `dashboardSignInsFor(host.deployment)` so sign-ins hold on every replica. */
  sessions?: DashboardSignIns | undefined;
}): DashboardAccess {
  const { tokenPrincipal, auth, clientId, publicUrl, sessions } = server;
  const base = publicUrl?.replace(/\/+$/, '');
  return createDashboardAccess({
    required: tokenPrincipal !== undefined || auth !== undefined,
    ...(tokenPrincipal
      ? {
          tokenPrincipal: (token: string) =>
            tokenPrincipal(
              { headers: { authorization: `Bearer ${token}` } } as IncomingMessage,
              new URL('http://localhost/'),
            ),
        }
      : {}),
    ...(auth && clientId && base
      ? { oauth: createOAuthSignIn({ resource: auth, clientId, publicUrl: base }) }
      : {}),
    secureCookies: base?.startsWith('https:') ?? false,
    ...(sessions ? { sessions } : {}),
  });
}

/** Creates the dashboard's sign-in: named token or authorization code + PKCE, then a cookie. */
export function createDashboardAccess(options: DashboardAccessOptions): DashboardAccess {
  const sessions: DashboardSignIns = options.sessions ?? new DashboardSessions();
  const secure = options.secureCookies;
  const sessionCookie = (value: string, maxAge: number) =>
    cookieHeader(SESSION_COOKIE, value, { maxAge, sameSite: 'Strict', secure });
  const loginCookie = (value: string, maxAge: number) =>
    cookieHeader(LOGIN_COOKIE, value, { maxAge, sameSite: 'Lax', path: CALLBACK_PATH, secure });
  const page = (response: ServerResponse, status: number, html: string, cookies: string[] = []) => {
    response.writeHead(status, {
      ...PAGE_HEADERS,
      ...(cookies.length > 0 ? { 'set-cookie': cookies } : {}),
    });
    response.end(html);
  };
  const signIn = async (response: ServerResponse, principal: Principal, html?: string) => {
    const { id } = await sessions.create(principal);
    const cookie = sessionCookie(id, sessions.ttlSeconds);
    if (html !== undefined) return page(response, 200, html, [cookie, loginCookie('', 0)]);
    response.writeHead(303, { location: '/', 'set-cookie': cookie, 'cache-control': 'no-store' });
    response.end();
  };

  const serveAuth = async (request: IncomingMessage, response: ServerResponse, url: URL) => {
    const route = `${request.method} ${url.pathname}`;
    const cookies = parseCookies(request.headers.cookie);
    if (route === 'POST /auth/token' && options.tokenPrincipal) {
      const token = new URLSearchParams(await readForm(request)).get('token') ?? '';
      const principal = token === '' ? undefined : options.tokenPrincipal(token);
      if (principal === undefined) {
        return page(
          response,
          401,
          signInPage({
            withIssuer: options.oauth !== undefined,
            problem: 'That token is not valid here.',
          }),
        );
      }
      return signIn(response, principal);
    }
    if (route === 'GET /auth/login' && options.oauth) {
      const started = await options.oauth.start().catch(() => undefined);
      if (started === undefined) {
        return page(
          response,
          502,
          signInPage({
            withIssuer: true,
            problem:
              'The identity provider could not be reached; try again, or sign in with a token.',
          }),
        );
      }
      response.writeHead(302, {
        location: started.location,
        'set-cookie': loginCookie(started.state, 600),
        'cache-control': 'no-store',
      });
      response.end();
      return;
    }
    if (route === `GET ${CALLBACK_PATH}` && options.oauth) {
      const outcome = await options.oauth.finish(url.searchParams, cookies.get(LOGIN_COOKIE));
      if (!outcome.ok) {
        return page(response, 401, signInPage({ withIssuer: true, problem: outcome.reason }), [
          loginCookie('', 0),
        ]);
      }
      return signIn(response, outcome.principal, SIGNED_IN_PAGE);
    }
    if (route === 'POST /auth/logout') {
      const id = cookies.get(SESSION_COOKIE);
      const session = id === undefined ? undefined : await sessions.get(id);
      if (id !== undefined && session && hasCsrf(request, session.csrf)) await sessions.delete(id);
      response.writeHead(303, { location: '/', 'set-cookie': sessionCookie('', 0) });
      response.end();
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: `Nothing at ${url.pathname}.` }));
  };

  return {
    async visitor(request, response, url, identify) {
      if (url.pathname.startsWith('/auth/')) {
        await serveAuth(request, response, url);
        return undefined;
      }
      if (!options.required) {
        const principal = await identify();
        return principal && { principal };
      }
      const id = parseCookies(request.headers.cookie).get(SESSION_COOKIE);
      const session = id === undefined ? undefined : await sessions.get(id);
      if (session !== undefined) {
        if (
          request.method !== 'GET' &&
          request.method !== 'HEAD' &&
          !hasCsrf(request, session.csrf)
        ) {
          response.writeHead(403, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({ error: `Send the ${CSRF_HEADER} header of your sign-in.` }),
          );
          return undefined;
        }
        return { principal: session.principal, csrf: session.csrf };
      }
      const hasBearer =
        request.headers.authorization !== undefined || url.searchParams.has('token');
      if (!hasBearer && request.method === 'GET' && url.pathname === '/') {
        page(response, 200, signInPage({ withIssuer: options.oauth !== undefined }));
        return undefined;
      }
      const principal = await identify();
      return principal && { principal };
    },
  };
}

/** Whether the request carries this CSRF value (compared in constant time). */
function hasCsrf(request: IncomingMessage, expected: string): boolean {
  const given = Buffer.from(String(request.headers[CSRF_HEADER] ?? ''));
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** A form body of at most {@link MAX_FORM_BYTES}; a larger one reads as empty. */
async function readForm(request: IncomingMessage): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return '';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
