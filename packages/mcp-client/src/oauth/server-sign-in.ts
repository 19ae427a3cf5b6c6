// Signing the user in to a configured MCP server, and what is known of a sign-in without
// contacting anyone: where its credentials live (per principal and server under the data
// directory), whether a token is stored and when it expires. No token ever leaves this file.
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import { McpClient } from '../mcp-client.js';
import type { McpHttpServerConfig } from '../mcp-server-config.js';
import { type AuthorizationStep, McpOAuthProvider } from './oauth-provider.js';
import { FileOAuthStore, type OAuthCredentialStore } from './oauth-store.js';

/** The directory of the MCP sign-ins under a deployment's data directory. */
export function oauthDirectory(dataDir: string): string {
  return join(dataDir, 'mcp-oauth');
}

/** Where `principal`'s credentials for `server` are kept under `dataDir` (file mode 0600). */
export function oauthStoreOf(dataDir: string, principal: string, server: string): FileOAuthStore {
  return FileOAuthStore.under(oauthDirectory(dataDir), principal, server);
}

/** Options of {@link oauthProviderFor}. */
export interface ServerOAuthOptions {
  /** Where the credentials are kept. */
  readonly store: OAuthCredentialStore;
  /** The browser step and its redirect URI, for an interactive sign-in only. */
  readonly interactive?: { readonly authorize: AuthorizationStep; readonly redirectUrl: string };
  /** The clock (tests). */
  readonly now?: () => number;
}

/**
 * The OAuth client of an HTTP server, or undefined for one that sends its own `Authorization`
 * (a configured bearer token or header). It is used only when the server answers 401.
 */
export function oauthProviderFor(
  config: McpHttpServerConfig,
  options: ServerOAuthOptions,
): McpOAuthProvider | undefined {
  const ownAuthorization =
    config.bearerToken !== undefined ||
    Object.keys(config.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
  if (ownAuthorization) return undefined;
  return new McpOAuthProvider({
    server: config.name,
    serverUrl: config.url,
    store: options.store,
    ...(config.oauth ? { settings: config.oauth } : {}),
    ...(options.interactive ?? {}),
    ...(options.now ? { now: options.now } : {}),
  });
}

/** Where a principal's sign-in to a server stands (never the token itself). */
export interface SignInState {
  /**
   * `signed-in`: a token is stored (refreshed on use when it expired and a refresh token is
   * kept); `expired`: the token expired and cannot be refreshed; `needs-sign-in`: the server
   * asked for a sign-in that has not happened; `none`: nothing is known (the server may need
   * none).
   */
  readonly state: 'signed-in' | 'expired' | 'needs-sign-in' | 'none';
  /** When the access token expires, in ms since the epoch, when known. */
  readonly expiresAt?: number;
  /** Whether a refresh token is kept. */
  readonly refreshable?: boolean;
}

/** What `store` tells about the sign-in, at `now`. */
export async function signInState(
  store: OAuthCredentialStore,
  now: number = Date.now(),
): Promise<SignInState> {
  const credentials = await store.load();
  const { tokens, expiresAt } = credentials;
  if (tokens === undefined) {
    return { state: credentials.needsSignIn === true ? 'needs-sign-in' : 'none' };
  }
  const refreshable = typeof tokens.refresh_token === 'string';
  const expired = expiresAt !== undefined && expiresAt <= now && !refreshable;
  return {
    state: expired ? 'expired' : 'signed-in',
    ...(expiresAt === undefined ? {} : { expiresAt }),
    refreshable,
  };
}

/** Records that `server` asked for a sign-in (shown by `toolsys mcp status` and doctor). */
export async function markSignInNeeded(store: OAuthCredentialStore): Promise<void> {
  const credentials = await store.load();
  if (credentials.tokens !== undefined || credentials.needsSignIn === true) return;
  await store.save({ ...credentials, needsSignIn: true });
}

/** Options of {@link signInToServer}. */
export interface SignInOptions {
  /** Where the credentials are kept. */
  readonly store: OAuthCredentialStore;
  /**
   * The browser step (e.g. a `LoopbackRedirect`'s `authorize`) and the redirect URI it listens
   * on. Without them the stored sign-in is used, and a server that needs one fails.
   */
  readonly interactive?: { readonly authorize: AuthorizationStep; readonly redirectUrl: string };
  /** Time limit of the whole sign-in (connect and list), in ms. Default 5 minutes. */
  readonly timeoutMs?: number;
}

/**
 * Signs in to `config`'s server: connects with an OAuth client (interactive: the
 * authorization-code flow with PKCE, the browser step `options.interactive.authorize`), lists its
 * tools to prove the token works, and disconnects. Resolves with the tools the server lists. A
 * server that needs no sign-in is simply reached.
 */
export async function signInToServer(
  config: McpHttpServerConfig,
  options: SignInOptions,
): Promise<{ tools: Tool[]; signedIn: boolean }> {
  const provider = oauthProviderFor(config, {
    store: options.store,
    ...(options.interactive ? { interactive: options.interactive } : {}),
  });
  const client = new McpClient(config, { oauth: () => provider });
  const timeoutMs = options.timeoutMs ?? 300_000;
  try {
    await client.connect({ timeoutMs });
    const tools = await client.listTools({ timeoutMs: 30_000 });
    return { tools, signedIn: (await provider?.hasTokens()) === true };
  } finally {
    await client.close();
  }
}
