import { createHash } from 'node:crypto';
import { fetchIssuerMetadata } from '../server/issuer-metadata.js';
import { checkedUrl, type OAuthResource } from '../server/oauth-resource.js';
import type { Principal } from '../server/principal.js';
import { randomSecret } from './dashboard-sessions.js';

/** The dashboard's path the identity provider sends the browser back to. */
export const CALLBACK_PATH = '/auth/callback';

/** How long a started sign-in waits for its callback: 10 minutes. */
const PENDING_TTL_MS = 10 * 60 * 1000;
/** Most sign-ins waiting at once; the oldest is dropped first. */
const MAX_PENDING = 200;

/** Options for {@link createOAuthSignIn}. */
export interface OAuthSignInOptions {
  /** The protected resource: checks the access token the sign-in ends with. */
  readonly resource: OAuthResource;
  /** The public client registered at the issuer for the dashboard (PKCE, no secret). */
  readonly clientId: string;
  /** Where browsers reach this server (`server.publicUrl`), without a trailing slash. */
  readonly publicUrl: string;
  /** Fetch used for discovery and the token request. Default the global fetch. */
  readonly fetch?: typeof globalThis.fetch;
  /** Clock in ms since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

/** What ended a sign-in: the principal, or why not (shown to the person). */
export type SignInOutcome =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly reason: string };

/** Authorization code + PKCE (S256) against the configured issuer, for the dashboard. */
export interface OAuthSignIn {
  /** Starts a sign-in: the `state` to bind to the browser and the issuer's URL to send it to. */
  start(): Promise<{ state: string; location: string }>;
  /**
   * Ends a sign-in from the callback's query: `state` must be the one this browser started with
   * (its cookie); the code is exchanged with the PKCE verifier and the access token checked as
   * every MCP request's is. The token is not kept.
   */
  finish(query: URLSearchParams, browserState: string | undefined): Promise<SignInOutcome>;
}

/** Creates the dashboard's OAuth sign-in. Nothing is fetched before the first sign-in. */
export function createOAuthSignIn(options: OAuthSignInOptions): OAuthSignIn {
  const fetcher = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const redirectUri = `${options.publicUrl}${CALLBACK_PATH}`;
  const audience = String(options.resource.metadata.resource);
  const [issuer] = options.resource.metadata.authorization_servers as readonly string[];
  const pending = new Map<string, { verifier: string; expiresAt: number }>();
  let endpoints: Promise<{ authorization: URL; token: URL }> | undefined;
  const discover = () => {
    endpoints ??= fetchIssuerMetadata(new URL(String(issuer)), String(issuer), fetcher).then(
      (metadata) => ({
        authorization: checkedUrl(
          String(metadata.authorization_endpoint),
          'authorization_endpoint',
        ),
        token: checkedUrl(String(metadata.token_endpoint), 'token_endpoint'),
      }),
    );
    endpoints.catch(() => {
      endpoints = undefined;
    });
    return endpoints;
  };

  return {
    async start() {
      const { authorization } = await discover();
      const state = randomSecret();
      const verifier = randomSecret();
      for (const [key, entry] of pending) if (entry.expiresAt <= now()) pending.delete(key);
      pending.set(state, { verifier, expiresAt: now() + PENDING_TTL_MS });
      while (pending.size > MAX_PENDING) pending.delete(pending.keys().next().value as string);
      const location = new URL(authorization);
      location.search = new URLSearchParams({
        response_type: 'code',
        client_id: options.clientId,
        redirect_uri: redirectUri,
        scope: options.resource.all.join(' '),
        state,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        resource: audience,
      }).toString();
      return { state, location: location.href };
    },

    async finish(query, browserState) {
      const state = query.get('state') ?? '';
      const entry = pending.get(state);
      // A state this browser did not start (or one already used) is a forged or replayed return.
      if (entry === undefined || browserState !== state || entry.expiresAt <= now()) {
        return { ok: false, reason: 'This sign-in was not started here or has expired.' };
      }
      pending.delete(state);
      const error = query.get('error');
      if (error !== null) {
        return { ok: false, reason: `The identity provider refused the sign-in (${error}).` };
      }
      const code = query.get('code');
      if (code === null) return { ok: false, reason: 'The identity provider sent no code.' };
      const { token: tokenEndpoint } = await discover();
      const response = await fetcher(tokenEndpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: options.clientId,
          code_verifier: entry.verifier,
          resource: audience,
        }),
        redirect: 'error',
        signal: AbortSignal.timeout(10_000),
      }).catch(() => undefined);
      const body = (await response?.json().catch(() => undefined)) as
        | { access_token?: unknown }
        | undefined;
      if (!response?.ok || typeof body?.access_token !== 'string') {
        return { ok: false, reason: 'The identity provider did not issue an access token.' };
      }
      const check = await options.resource.verify(body.access_token);
      if (!check.ok) return { ok: false, reason: check.description };
      const { subject, clientId, scopes } = check.identity;
      return {
        ok: true,
        principal: { id: subject, kind: 'oauth', ...(clientId ? { clientId } : {}), scopes },
      };
    },
  };
}
