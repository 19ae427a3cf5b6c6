// The OAuth 2.1 client of one MCP server (MCP authorization spec), on the SDK's `auth()`:
// protected-resource and authorization-server discovery, client ID metadata documents, dynamic
// registration, PKCE, resource indicators, scope selection and step-up, refresh and the RFC 9207
// issuer check are the SDK's; this provider keeps the credentials, runs the browser step and
// bounds how often a user is sent to sign in.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  auth,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { FetchLike } from '../bounded-fetch.js';
import { authRefused, signInRequired, signInUnfinished } from './oauth-errors.js';
import type { OAuthCredentialStore } from './oauth-store.js';
import { withinOriginFetch } from './origin-fetch.js';

/** How a server's client is registered, from the deployment's config (`oauth` of a server). */
export interface McpOAuthSettings {
  /** A client registered beforehand with the authorization server. */
  readonly clientId?: string;
  /** Its secret (confidential clients only); never shown. */
  readonly clientSecret?: string;
  /** How the client authenticates at the token endpoint; chosen from the server's list when absent. */
  readonly tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** An https URL of this client's metadata document (used where the server supports it). */
  readonly clientMetadataUrl?: string;
  /** The scope to ask for; by default the server's challenge or its `scopes_supported`. */
  readonly scope?: string;
  /**
   * The loopback port a sign-in receives its redirect on (`http://127.0.0.1:<port>/callback`),
   * for a client registered with that exact redirect URI; a free port when absent.
   */
  readonly redirectPort?: number;
}

/**
 * The browser step: sends the user to `authorizationUrl` and resolves with the query of the
 * redirect back to `redirectUrl` (its `code`, `state`, `iss` or `error`).
 */
export type AuthorizationStep = (
  authorizationUrl: URL,
  redirectUrl: string,
) => Promise<URLSearchParams>;

/** Options of {@link McpOAuthProvider}. */
export interface McpOAuthProviderOptions {
  /** The server's name, for messages. */
  readonly server: string;
  /** The server's endpoint (the protected resource). */
  readonly serverUrl: string;
  /** Where the credentials are kept. */
  readonly store: OAuthCredentialStore;
  /** Registration settings from the config. */
  readonly settings?: McpOAuthSettings;
  /** The loopback redirect URI of an interactive sign-in. */
  readonly redirectUrl?: string;
  /**
   * Runs the browser step. Without it the provider never sends anyone to sign in: a server that
   * needs it fails with a sign-in-required error naming the login command.
   */
  readonly authorize?: AuthorizationStep;
  /** Sign-ins at most in this provider's life (a step-up that never satisfies ends). Default 3. */
  readonly maxAuthorizations?: number;
  /** An access token this close to expiry is refreshed before use, in ms. Default 60 000. */
  readonly refreshMarginMs?: number;
  /** The client name sent at registration. Default `Toolsys`. */
  readonly clientName?: string;
  /** The fetch under the sign-in's own requests. */
  readonly fetch?: FetchLike;
  /** The clock, in ms since the epoch. */
  readonly now?: () => number;
}

/** The redirect URI announced by a provider that never runs the browser step. */
const NON_INTERACTIVE_REDIRECT = 'http://127.0.0.1/callback';

/** The OAuth client of one MCP server (see the file comment). */
export class McpOAuthProvider implements OAuthClientProvider {
  readonly #options: McpOAuthProviderOptions;
  readonly #fetch: FetchLike;
  #state: string | undefined;
  #codeVerifier: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;
  #authorizations = 0;
  #fresh = false;

  constructor(options: McpOAuthProviderOptions) {
    this.#options = options;
    this.#fetch = withinOriginFetch(options.server, options.fetch);
  }

  /** Whether this provider can send a user to sign in. */
  get interactive(): boolean {
    return this.#options.authorize !== undefined;
  }

  /** {@inheritDoc OAuthClientProvider.redirectUrl} */
  get redirectUrl(): string {
    return this.#options.redirectUrl ?? NON_INTERACTIVE_REDIRECT;
  }

  /** {@inheritDoc OAuthClientProvider.clientMetadataUrl} */
  get clientMetadataUrl(): string | undefined {
    return this.#options.settings?.clientMetadataUrl;
  }

  /** {@inheritDoc OAuthClientProvider.clientMetadata} */
  get clientMetadata(): OAuthClientMetadata {
    const settings = this.#options.settings ?? {};
    return {
      client_name: this.#options.clientName ?? 'Toolsys',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(settings.tokenEndpointAuthMethod === undefined
        ? {}
        : { token_endpoint_auth_method: settings.tokenEndpointAuthMethod }),
      ...(settings.scope === undefined ? {} : { scope: settings.scope }),
    };
  }

  /** {@inheritDoc OAuthClientProvider.state} */
  state(): string {
    this.#state = randomBytes(24).toString('base64url');
    return this.#state;
  }

  /** {@inheritDoc OAuthClientProvider.clientInformation} */
  async clientInformation(ctx?: {
    issuer: string;
  }): Promise<StoredOAuthClientInformation | undefined> {
    const settings = this.#options.settings ?? {};
    const stored = (await this.#options.store.load()).client;
    if (settings.clientId !== undefined) {
      // The configured client is this server's whichever issuer it names: it is stamped with
      // the issuer in use, as a client the SDK registered would be.
      return {
        ...(ctx === undefined ? {} : { issuer: ctx.issuer }),
        ...(stored?.client_id === settings.clientId ? stored : {}),
        client_id: settings.clientId,
        ...(settings.clientSecret === undefined ? {} : { client_secret: settings.clientSecret }),
        ...(settings.tokenEndpointAuthMethod === undefined
          ? {}
          : { token_endpoint_auth_method: settings.tokenEndpointAuthMethod }),
      };
    }
    if (!this.interactive) {
      // Registering a client for a sign-in that cannot happen here would only litter the server.
      if (stored === undefined) throw signInRequired(this.#options.server);
      return stored;
    }
    // A client registered for another loopback redirect cannot complete this sign-in.
    const registeredFor = (stored as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    if (Array.isArray(registeredFor) && !registeredFor.includes(this.redirectUrl)) return undefined;
    return stored;
  }

  /** {@inheritDoc OAuthClientProvider.saveClientInformation} */
  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    await this.#update((credentials) => ({ ...credentials, client }));
  }

  /**
   * {@inheritDoc OAuthClientProvider.tokens} Without `ctx` (the token of the next request) an
   * access token that expires within the refresh margin reads as none, so the request is
   * answered 401 and the token refreshed first.
   */
  async tokens(ctx?: { issuer: string }): Promise<StoredOAuthTokens | undefined> {
    const { tokens, expiresAt } = await this.#options.store.load();
    if (ctx !== undefined || tokens === undefined || expiresAt === undefined) return tokens;
    const now = (this.#options.now ?? Date.now)();
    return expiresAt - (this.#options.refreshMarginMs ?? 60_000) > now ? tokens : undefined;
  }

  /** {@inheritDoc OAuthClientProvider.saveTokens} */
  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    const now = (this.#options.now ?? Date.now)();
    await this.#update((credentials) => {
      const { needsSignIn: _answered, ...rest } = credentials;
      const next = { ...rest, tokens };
      // A refresh that issues no new refresh token keeps the one it was made with (RFC 6749 §6).
      if (tokens.refresh_token === undefined && credentials.tokens?.refresh_token !== undefined) {
        next.tokens = { ...tokens, refresh_token: credentials.tokens.refresh_token };
      }
      if (typeof tokens.expires_in === 'number') next.expiresAt = now + tokens.expires_in * 1000;
      else delete next.expiresAt;
      return next;
    });
  }

  /** {@inheritDoc OAuthClientProvider.saveCodeVerifier} */
  saveCodeVerifier(codeVerifier: string): void {
    this.#codeVerifier = codeVerifier;
  }

  /** {@inheritDoc OAuthClientProvider.codeVerifier} */
  codeVerifier(): string {
    if (this.#codeVerifier === undefined) throw signInRequired(this.#options.server);
    return this.#codeVerifier;
  }

  /** {@inheritDoc OAuthClientProvider.saveDiscoveryState} */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  /** {@inheritDoc OAuthClientProvider.discoveryState} */
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  /** {@inheritDoc OAuthClientProvider.invalidateCredentials} */
  async invalidateCredentials(
    scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery',
  ): Promise<void> {
    if (scope === 'all' || scope === 'verifier') this.#codeVerifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.#discovery = undefined;
    if (scope === 'all') return this.#options.store.clear();
    if (scope === 'client') {
      await this.#update(({ client: _dropped, ...rest }) => rest);
    }
    if (scope === 'tokens') {
      await this.#update(({ tokens: _dropped, expiresAt: _expiry, ...rest }) => rest);
    }
  }

  /**
   * Runs the browser step, checks what comes back (the `state`; the `iss` is the SDK's check) and
   * redeems the code. The SDK then reports the connection unauthorized: the caller sees
   * {@link takeFreshAuthorization} and retries once.
   */
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const { authorize, server, serverUrl } = this.#options;
    if (!authorize) throw signInRequired(server);
    if (this.#authorizations >= (this.#options.maxAuthorizations ?? 3)) {
      throw authRefused(
        server,
        `the server asked for sign-in ${this.#authorizations + 1} times in a row (it is not satisfied by what it grants)`,
      );
    }
    this.#authorizations += 1;
    let callback: URLSearchParams;
    try {
      callback = await authorize(authorizationUrl, this.redirectUrl);
    } catch (error) {
      throw signInUnfinished(server, (error as Error).message);
    }
    if (!sameState(callback.get('state'), this.#state)) {
      throw authRefused(
        server,
        'the authorization response does not carry the state that was sent',
      );
    }
    const error = callback.get('error');
    if (error !== null) {
      // Only the error code: its description is the authorization server's text.
      throw authRefused(server, `the authorization server answered ${errorCode(error)}`);
    }
    const code = callback.get('code');
    if (code === null) throw authRefused(server, 'the authorization response carries no code');
    const iss = callback.get('iss');
    const scope = authorizationUrl.searchParams.get('scope');
    try {
      const result = await auth(this, {
        serverUrl,
        authorizationCode: code,
        ...(iss === null ? {} : { iss }),
        ...(scope === null ? {} : { scope }),
        ...(this.#discovery?.resourceMetadataUrl
          ? { resourceMetadataUrl: new URL(this.#discovery.resourceMetadataUrl) }
          : {}),
        fetchFn: this.#fetch,
      });
      this.#fresh = result === 'AUTHORIZED';
    } finally {
      // The discovery binds this one authorization: the next one discovers again (the server may
      // have moved to another authorization server meanwhile).
      this.#codeVerifier = undefined;
      this.#discovery = undefined;
    }
  }

  /** Whether a sign-in completed since the last call (and so a failed request may be retried). */
  takeFreshAuthorization(): boolean {
    const fresh = this.#fresh;
    this.#fresh = false;
    return fresh;
  }

  /** Whether tokens are stored (possibly expired, then refreshed on use). */
  async hasTokens(): Promise<boolean> {
    return (await this.#options.store.load()).tokens !== undefined;
  }

  async #update(
    change: (
      credentials: Awaited<ReturnType<OAuthCredentialStore['load']>>,
    ) => Awaited<ReturnType<OAuthCredentialStore['load']>>,
  ): Promise<void> {
    const { store } = this.#options;
    await store.save(change(await store.load()));
  }
}

function sameState(received: string | null, sent: string | undefined): boolean {
  if (received === null || sent === undefined) return false;
  const a = Buffer.from(received);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** An OAuth error code as it may be shown: the RFC 6749 charset, bounded. */
function errorCode(code: string): string {
  return /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(code) ? `"${code}"` : 'with an error';
}
