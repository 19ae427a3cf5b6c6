import { createHash, randomUUID } from 'node:crypto';
import type { DeploymentConfig } from './config.js';

/** The default idle time after which an MCP session is closed: 30 minutes. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

/**
 * A fresh, unguessable session id (`stdio-<uuid>`, `cli-<uuid>`): permission answers and what
 * tools hold per session (terminals, pages) are keyed by it, so it must never repeat across
 * connections, runs or users.
 */
export function newSessionId(kind: 'stdio' | 'cli' | 'dashboard' | 'mcp'): string {
  return `${kind}-${randomUUID()}`;
}

/** How long a session may stay idle, in ms: `server.sessionIdleSeconds`, else 30 minutes. */
export function sessionIdleMs(config: DeploymentConfig): number {
  const seconds = config.server?.sessionIdleSeconds;
  return seconds !== undefined ? seconds * 1000 : DEFAULT_SESSION_IDLE_MS;
}

/**
 * A digest of the deployment's permission policy (the level per risk, with the defaults filled
 * in, and the configured allow-list): the scope of the "always" answers it shares through Redis,
 * so that a replica with another policy never honours them.
 */
export function permissionPolicyScope(config: DeploymentConfig): string {
  const permissions = config.permissions ?? {};
  const policy = {
    LOW: permissions.LOW ?? 'allow',
    MEDIUM: permissions.MEDIUM ?? 'ask',
    HIGH: permissions.HIGH ?? 'ask',
    alwaysAllow: [...new Set(permissions.alwaysAllow ?? [])].sort(),
  };
  return createHash('sha256').update(JSON.stringify(policy)).digest('hex').slice(0, 16);
}
