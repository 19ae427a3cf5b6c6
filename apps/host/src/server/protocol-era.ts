import { handleDigest } from './handle-digest.js';
import { type Principal, principalKey } from './principal.js';

/**
 * The two protocol eras every endpoint serves: `legacy` is 2025-11-25 (an `initialize`
 * handshake, sessions, server-to-client requests), `modern` is 2026-07-28 (stateless: every
 * request carries its version, client info and capabilities in `_meta`; input requests are
 * multi-round-trip results).
 */
export type ProtocolEra = 'legacy' | 'modern';

/** The revision of the stateless protocol. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** The session id tools see for calls of a modern (stateless) HTTP client: one per principal. */
export function statelessSessionId(principal: Principal): string {
  return `mcp-stateless-${handleDigest(principalKey(principal))}`;
}
