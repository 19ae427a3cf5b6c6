/** What an authorization server publishes about itself (RFC 8414 / OpenID discovery). */
export interface IssuerMetadata {
  readonly issuer: string;
  readonly [field: string]: unknown;
}

/**
 * The issuer's metadata: its RFC 8414 document (`/.well-known/oauth-authorization-server`
 * inserted before the issuer's path) or else its OpenID discovery document. The document must
 * name the same issuer (RFC 8414 §3.3); redirects are not followed and each fetch is bounded to
 * 5 s. Throws when neither document answers.
 */
export async function fetchIssuerMetadata(
  issuerUrl: URL,
  issuer: string,
  fetcher: typeof globalThis.fetch,
): Promise<IssuerMetadata> {
  const path = issuerUrl.pathname.replace(/\/$/, '');
  const candidates = [
    `${issuerUrl.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuerUrl.origin}${path}/.well-known/openid-configuration`,
  ];
  for (const candidate of candidates) {
    const response = await fetcher(candidate, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(5_000),
    }).catch(() => undefined);
    if (!response?.ok) continue;
    const document = (await response.json().catch(() => undefined)) as
      | Record<string, unknown>
      | undefined;
    if (document?.issuer === issuer) return document as IssuerMetadata;
  }
  throw new Error(`No authorization server metadata naming ${issuer} was found.`);
}
