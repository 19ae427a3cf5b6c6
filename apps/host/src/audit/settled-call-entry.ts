// The audit entry of a call the executor settled.
import type { SettledCall } from '@toolsys/core-tool-registry';
import type { AuditEntry, AuditSource } from './audit-entry.js';

/** What the server that took a call knows of it beyond the executor. */
export interface AuditCallOrigin {
  /** Where the call came in. */
  readonly source?: AuditSource;
  /** The name the MCP client gave in its `clientInfo`. */
  readonly clientName?: string;
  /** Set when a confirmation was needed and nobody could answer it. */
  readonly unanswered?: boolean;
}

/** The principal recorded for a call that named none (`toolsys call`, an embedding program). */
const LOCAL = { id: 'local', kind: 'local' } as const;

/**
 * The audit entry of a settled call: its principal and client, decision, outcome and duration,
 * and a digest of its arguments, never their values.
 */
export function settledCallEntry(
  call: SettledCall,
  origin: AuditCallOrigin | undefined,
  options: {
    replica?: string | undefined;
    now: number;
    /** The keyed digest of the arguments (`ExecutionStack.digestArguments`). */
    digest: (value: unknown) => string;
  },
): AuditEntry {
  const principal = call.principal ? { id: call.principal.id, kind: call.principal.kind } : LOCAL;
  const clientId = call.principal?.clientId;
  const clientName = origin?.clientName;
  // The scoped confirm answers "deny" for a caller that cannot be asked: that is nobody's answer.
  const deniedBy =
    call.decision === 'denied' && call.deniedBy === 'user' && origin?.unanswered
      ? 'unanswered'
      : call.deniedBy;
  return {
    time: new Date(options.now).toISOString(),
    principal,
    ...(clientId !== undefined || clientName !== undefined
      ? {
          client: {
            ...(clientId !== undefined ? { id: clientId } : {}),
            ...(clientName !== undefined ? { name: clientName } : {}),
          },
        }
      : {}),
    tool: call.toolId,
    ...(call.risk ? { risk: call.risk } : {}),
    decision: call.decision,
    ...(call.decision === 'denied' && deniedBy ? { deniedBy } : {}),
    outcome: call.result.ok ? 'ok' : call.result.error.code,
    durationMs: call.durationMs,
    ...(options.replica !== undefined ? { replica: options.replica } : {}),
    ...(origin?.source ? { source: origin.source } : {}),
    callId: call.callId,
    args: options.digest(call.rawArgs),
  };
}
