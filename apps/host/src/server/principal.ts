/** Who is calling: an OAuth subject, a named static token, or the local user. */
export interface Principal {
  /** The OAuth token's `sub`, the static token's name, or `local`. */
  readonly id: string;
  /** How the caller proved who it is. */
  readonly kind: 'oauth' | 'token' | 'local';
  /** The OAuth client the token was issued to (`client_id`, else `azp`), when known. */
  readonly clientId?: string;
  /** The scopes the caller holds; empty for `local`, which the permission policy alone governs. */
  readonly scopes: readonly string[];
}

/** The caller on stdio and on loopback without a token. */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({
  id: 'local',
  kind: 'local',
  scopes: Object.freeze([]) as readonly string[],
});

/** A key naming one principal: equal for the same caller, different across kinds. */
export function principalKey(principal: Principal): string {
  return `${principal.kind}:${principal.id}`;
}
