// What a request naming a session this server does not have is told: whose it was, and what next.

/** The replica a session id names (`<replica>.<uuid>`), when it has that shape. */
function sessionReplica(sessionId: string): string | undefined {
  const match = /^([A-Za-z0-9_:-]{1,64})\.[0-9a-f-]{36}$/.exec(sessionId);
  return match?.[1];
}

/** What a stateful package held for a session, named for the model. */
const SESSION_STATE =
  'open browser pages, terminal sessions and Android device connections of that session, with everything they held';

/**
 * The error for a session id this server does not have: whose it was, that its state is gone, and
 * to initialize again. The id itself is echoed only when it has the shape of one.
 */
export function sessionNotFoundMessage(
  sessionId: string,
  replicaId: string | undefined,
  idleMs: number,
): string {
  const owner = sessionReplica(sessionId);
  const next =
    'Send initialize again without the Mcp-Session-Id header to start a new session, then set up again what the old one had open.';
  if (owner !== undefined && owner !== replicaId) {
    return `Session lost: session "${sessionId}" was opened on replica "${owner}", which no longer serves it (it stopped, crashed or restarted), so this request reached replica "${replicaId ?? 'unnamed'}". Its state is gone: the ${SESSION_STATE}. A call in flight on it when it stopped may or may not have run. ${next}`;
  }
  const named = owner !== undefined ? `"${sessionId}"` : 'with this id';
  return `Session not found: this server has no session ${named} (it ended, was closed after ${Math.round(idleMs / 1000)} s idle, or the server restarted, which loses the ${SESSION_STATE}). ${next}`;
}

/** Structured fields of the session-not-found error, for clients that branch on them. */
export function sessionLostData(
  sessionId: string,
  replicaId: string | undefined,
): Record<string, unknown> {
  const owner = sessionReplica(sessionId);
  return {
    reason: owner !== undefined && owner !== replicaId ? 'replica-gone' : 'session-not-found',
    ...(owner !== undefined ? { openedOn: owner } : {}),
    ...(replicaId !== undefined ? { servedBy: replicaId } : {}),
    stateLost: true,
    next: 'initialize',
  };
}
