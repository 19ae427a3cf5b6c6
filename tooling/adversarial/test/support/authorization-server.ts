import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import Provider from 'oidc-provider';

/** A real OAuth authorization server (oidc-provider) on 127.0.0.1, issuing JWT access tokens. */
export interface AuthorizationServer {
  /** Its issuer identifier, `http://127.0.0.1:<port>`. */
  readonly issuer: string;
  /** Issues a JWT access token for `accountId` with these scopes, for the configured audience. */
  issue(accountId: string, scopes: readonly string[]): Promise<string>;
  /**
   * Signs these claims with the issuer's own key, as it would never issue them (expired, for
   * another audience, naming another issuer): for tokens that only the claims make wrong.
   */
  sign(claims: JWTPayload): Promise<string>;
  /**
   * Issues an opaque access token for `audience` (a resource server checked by introspection);
   * `expiresIn` in seconds (default 600).
   */
  issueOpaque(
    accountId: string,
    scopes: readonly string[],
    options: { audience: string; expiresIn?: number },
  ): Promise<string>;
  /** Revokes an opaque access token (introspection then says it is not active). */
  revoke(token: string): Promise<void>;
  /** The client a resource server introspects as (`client_secret_basic`). */
  readonly introspector: { readonly clientId: string; readonly clientSecret: string };
  /** Stops listening. */
  close(): Promise<void>;
}

const INTROSPECTOR = { clientId: 'resource-server', clientSecret: 'resource-server-secret' };

/**
 * Starts an authorization server whose access tokens name `audience` and may carry `scopes`. With
 * `publicClient`, it also knows that public client (PKCE, no secret) and signs people in with
 * oidc-provider's development login and consent pages (any login name, any password).
 */
export async function startAuthorizationServer(options: {
  audience: string;
  scopes: readonly string[];
  publicClient?: { clientId: string; redirectUri: string; refreshTokens?: boolean };
}): Promise<AuthorizationServer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const resourceServer = {
    audience: options.audience,
    scope: options.scopes.join(' '),
    accessTokenFormat: 'jwt' as const,
    jwt: { sign: { alg: 'ES256' as const } },
  };
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const signingKey = {
    ...(await exportJWK(privateKey)),
    kid: 'test-es256',
    alg: 'ES256',
    use: 'sig',
  };
  const provider = new Provider(issuer, {
    jwks: { keys: [signingKey] },
    ttl: { AccessToken: 600 },
    clients: [
      {
        client_id: 'test-client',
        client_secret: 'test-client-secret',
        grant_types: ['authorization_code'],
        redirect_uris: ['http://127.0.0.1/callback'],
        response_types: ['code'],
        id_token_signed_response_alg: 'ES256',
      },
      {
        client_id: INTROSPECTOR.clientId,
        client_secret: INTROSPECTOR.clientSecret,
        grant_types: [],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'ES256',
      },
      ...(options.publicClient
        ? [
            {
              client_id: options.publicClient.clientId,
              token_endpoint_auth_method: 'none' as const,
              grant_types: options.publicClient.refreshTokens
                ? ['authorization_code', 'refresh_token']
                : ['authorization_code'],
              redirect_uris: [options.publicClient.redirectUri],
              response_types: ['code' as const],
              id_token_signed_response_alg: 'ES256',
            },
          ]
        : []),
    ],
    // A client allowed the refresh_token grant gets a refresh token (no offline_access needed).
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    features: {
      devInteractions: { enabled: options.publicClient !== undefined },
      introspection: { enabled: true, allowedPolicy: () => true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: () => resourceServer,
      },
    },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    async issue(accountId, scopes) {
      const client = await provider.Client.find('test-client');
      const token = new provider.AccessToken({
        accountId,
        client,
        scope: scopes.join(' '),
        resourceServer: { ...resourceServer, scope: scopes.join(' ') },
      });
      return token.save();
    },
    introspector: INTROSPECTOR,
    async issueOpaque(accountId, scopes, { audience, expiresIn }) {
      const client = await provider.Client.find('test-client');
      const token = new provider.AccessToken({
        accountId,
        client,
        scope: scopes.join(' '),
        ...(expiresIn !== undefined ? { expiresIn } : {}),
        resourceServer: { audience, scope: scopes.join(' '), accessTokenFormat: 'opaque' },
      });
      return token.save();
    },
    async revoke(token) {
      const found = await provider.AccessToken.find(token);
      await found?.destroy();
    },
    sign(claims) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: signingKey.kid, typ: 'at+jwt' })
        .sign(privateKey);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
