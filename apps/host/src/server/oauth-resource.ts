import type { ToolRisk } from '@toolsys/core-tool-registry';
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { isLoopbackHost } from './http-security.js';
import { fetchIssuerMetadata } from './issuer-metadata.js';
import { createIntrospector, type Introspector, looksLikeJwt } from './token-introspection.js';

/** The scope each risk level needs, by default. */
export const DEFAULT_RISK_SCOPES: Readonly<Record<ToolRisk, string>> = {
  LOW: 'tools:read',
  MEDIUM: 'tools:write',
  HIGH: 'tools:admin',
};

/** Signature algorithms an access token may use; never `none` nor a shared-secret HS*. */
export const ACCEPTED_TOKEN_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;

/** Clock skew tolerated on `exp` and `nbf`, in seconds. */
export const TOKEN_CLOCK_SKEW_SECONDS = 60;

const RISK_ORDER: readonly ToolRisk[] = ['LOW', 'MEDIUM', 'HIGH'];

/** Options of {@link createOAuthResource}. */
export interface OAuthResourceOptions {
  /** The authorization server's issuer identifier, exactly as its tokens' `iss` claim. */
  issuer: string;
  /** The resource URL tokens must name in `aud` (the MCP endpoint, e.g. `https://host/mcp`). */
  audience: string;
  /** The server's public base URL, from which the metadata URL is built. */
  publicUrl: string;
  /** Scope each risk level needs. Default {@link DEFAULT_RISK_SCOPES}. */
  scopes?: Partial<Record<ToolRisk, string>>;
  /** Fetch used for discovery and keys (tests pass their own). Default the global fetch. */
  fetch?: typeof globalThis.fetch;
  /**
   * Checks opaque (non-JWT) access tokens by RFC 7662 introspection as this client; without it
   * only JWT access tokens are accepted.
   */
  introspection?: {
    /** The introspection endpoint. Default: the issuer metadata's `introspection_endpoint`. */
    endpoint?: string;
    /** This resource server's client id at the authorization server. */
    clientId: string;
    /** Its client secret, sent with `client_secret_basic`. */
    clientSecret: string;
  };
}

/** Who an OAuth access token was issued to. */
export interface OAuthIdentity {
  /** The token's subject (`sub`). */
  readonly subject: string;
  /** The client the token was issued to (`client_id`, else `azp`), when it says. */
  readonly clientId?: string;
  /** The scopes the token grants. */
  readonly scopes: readonly string[];
}

/** What checking a token gave: the identity, or why it was refused (for the WWW-Authenticate header). */
export type TokenCheck =
  | { readonly ok: true; readonly identity: OAuthIdentity }
  | { readonly ok: false; readonly description: string };

/** Which scope each risk level needs. */
export interface ScopeRules {
  /** The scope a call of this risk needs. */
  scopeFor(risk: ToolRisk): string;
  /** Whether scopes granted by a token allow a call of this risk (a higher level's scope covers lower ones). */
  allows(scopes: readonly string[], risk: ToolRisk): boolean;
  /** Every scope, lowest level first. */
  readonly all: readonly string[];
}

/** The rules for these scope names (missing levels take {@link DEFAULT_RISK_SCOPES}). */
export function createScopeRules(names: Partial<Record<ToolRisk, string>> = {}): ScopeRules {
  const scopes: Record<ToolRisk, string> = { ...DEFAULT_RISK_SCOPES, ...names };
  return {
    scopeFor: (risk) => scopes[risk],
    allows(granted, risk) {
      const held = new Set(granted);
      return RISK_ORDER.slice(RISK_ORDER.indexOf(risk)).some((level) => held.has(scopes[level]));
    },
    all: [...new Set(RISK_ORDER.map((risk) => scopes[risk]))],
  };
}

/** An OAuth 2.1 protected resource (RFC 9728 metadata, RFC 6750 challenges, JWT access tokens). */
export interface OAuthResource extends ScopeRules {
  /** The URL of the protected resource metadata document. */
  readonly metadataUrl: string;
  /** The protected resource metadata document (RFC 9728). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Checks a bearer access token. Never throws. */
  verify(token: string): Promise<TokenCheck>;
  /** The `WWW-Authenticate` value of a 401: no token, or (with `description`) a bad one. */
  challenge(description?: string): string;
  /** The `WWW-Authenticate` value of a 403 for a call that needs `scope`. */
  insufficientScope(scope: string): string;
}

/** An issuer or public URL that cannot be used. */
export class OAuthConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OAuthConfigError';
  }
}

/**
 * Makes the server an OAuth 2.1 protected resource per the MCP authorization spec: the issuer's
 * signing keys are found through its RFC 8414 (else OpenID) discovery document on first use, and
 * `jose` checks each token's signature, algorithm, issuer, audience, `exp` and `nbf`. An `http:`
 * issuer is accepted only on loopback.
 */
export function createOAuthResource(options: OAuthResourceOptions): OAuthResource {
  const issuerUrl = checkedUrl(options.issuer, 'server.auth.issuer');
  checkedUrl(options.publicUrl, 'server.publicUrl');
  const rules = createScopeRules(options.scopes);
  const fetcher = options.fetch ?? globalThis.fetch;
  const publicUrl = new URL(options.publicUrl);
  const metadataUrl = `${publicUrl.origin}/.well-known/oauth-protected-resource${new URL(options.audience).pathname.replace(/\/$/, '')}`;
  const metadata = {
    resource: options.audience,
    authorization_servers: [options.issuer],
    scopes_supported: rules.all,
    bearer_methods_supported: ['header'],
  };
  let discovered: Promise<AuthorizationServerMetadata> | undefined;
  const discover = () => {
    discovered ??= discoverMetadata(issuerUrl, options.issuer, fetcher);
    // A failed discovery is tried again by the next request.
    discovered.catch(() => {
      discovered = undefined;
    });
    return discovered;
  };
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const keySet = () => {
    keys ??= discover().then(({ jwksUri }) => {
      if (!jwksUri) throw new OAuthConfigError(`${options.issuer} publishes no jwks_uri.`);
      return createRemoteJWKSet(jwksUri, { cooldownDuration: 30_000, timeoutDuration: 5_000 });
    });
    keys.catch(() => {
      keys = undefined;
    });
    return keys;
  };
  const introspection = options.introspection;
  const configuredEndpoint = introspection?.endpoint
    ? checkedUrl(introspection.endpoint, 'server.auth.introspection.endpoint')
    : undefined;
  const introspect: Introspector | undefined = introspection
    ? createIntrospector({
        endpoint: async () => {
          if (configuredEndpoint) return configuredEndpoint;
          const { introspectionEndpoint } = await discover();
          if (!introspectionEndpoint) {
            throw new OAuthConfigError(`${options.issuer} publishes no introspection_endpoint.`);
          }
          return introspectionEndpoint;
        },
        clientId: introspection.clientId,
        clientSecret: introspection.clientSecret,
        issuer: options.issuer,
        audience: options.audience,
        fetch: fetcher,
      })
    : undefined;
  const quote = (value: string) => `"${value.replace(/["\\]/g, '')}"`;
  return {
    ...rules,
    metadataUrl,
    metadata,
    async verify(token) {
      if (introspect && !looksLikeJwt(token)) return introspect(token);
      let jwks: Awaited<ReturnType<typeof keySet>>;
      try {
        jwks = await keySet();
      } catch {
        return { ok: false, description: 'The authorization server could not be reached.' };
      }
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: options.issuer,
          audience: options.audience,
          algorithms: [...ACCEPTED_TOKEN_ALGORITHMS],
          clockTolerance: TOKEN_CLOCK_SKEW_SECONDS,
          requiredClaims: ['sub', 'exp'],
        });
        return { ok: true, identity: identityOf(payload) };
      } catch (error) {
        return { ok: false, description: tokenErrorText(error) };
      }
    },
    challenge(description) {
      const parts = [
        ...(description === undefined
          ? []
          : ['error="invalid_token"', `error_description=${quote(description)}`]),
        `resource_metadata=${quote(metadataUrl)}`,
        `scope=${quote(rules.scopeFor('LOW'))}`,
      ];
      return `Bearer ${parts.join(', ')}`;
    },
    insufficientScope(scope) {
      return `Bearer error="insufficient_scope", scope=${quote(scope)}, resource_metadata=${quote(metadataUrl)}`;
    },
  };
}

/**
 * `value` as a URL when it is https: (or http: on loopback); else an {@link OAuthConfigError}
 * naming `field`.
 */
export function checkedUrl(value: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthConfigError(`${field} must be an absolute URL, got "${value}".`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  throw new OAuthConfigError(
    `${field} must be an https: URL (http: only on loopback), got "${value}".`,
  );
}

/** What a protected resource uses of its authorization server's metadata. */
interface AuthorizationServerMetadata {
  readonly jwksUri?: URL;
  readonly introspectionEndpoint?: URL;
}

/**
 * The issuer's `jwks_uri` and `introspection_endpoint`, from its metadata (see
 * {@link fetchIssuerMetadata}); a document naming neither is no use to a resource.
 */
async function discoverMetadata(
  issuerUrl: URL,
  issuer: string,
  fetcher: typeof globalThis.fetch,
): Promise<AuthorizationServerMetadata> {
  const document = await fetchIssuerMetadata(issuerUrl, issuer, fetcher).catch(() => undefined);
  const jwks = document?.jwks_uri;
  const introspection = document?.introspection_endpoint;
  if (typeof jwks !== 'string' && typeof introspection !== 'string') {
    throw new OAuthConfigError(`No authorization server metadata naming ${issuer} was found.`);
  }
  return {
    ...(typeof jwks === 'string' ? { jwksUri: checkedUrl(jwks, 'jwks_uri') } : {}),
    ...(typeof introspection === 'string'
      ? { introspectionEndpoint: checkedUrl(introspection, 'introspection_endpoint') }
      : {}),
  };
}

function identityOf(payload: JWTPayload): OAuthIdentity {
  const clientId =
    typeof payload.client_id === 'string'
      ? payload.client_id
      : typeof payload.azp === 'string'
        ? payload.azp
        : undefined;
  const scope = typeof payload.scope === 'string' ? payload.scope : '';
  return {
    subject: payload.sub as string,
    ...(clientId !== undefined ? { clientId } : {}),
    scopes: scope.split(' ').filter((entry) => entry !== ''),
  };
}

/** Why a token was refused, in words safe to send back (never the token itself). */
function tokenErrorText(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The access token has expired.';
  if (error instanceof errors.JWTClaimValidationFailed) {
    return `The access token's "${error.claim}" claim is not accepted here.`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return 'The access token is signed with an algorithm this server does not accept.';
  }
  if (
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWSSignatureVerificationFailed
  ) {
    return "The access token is not signed by the authorization server's keys.";
  }
  return 'The access token is not valid.';
}
