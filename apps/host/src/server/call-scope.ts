import { AsyncLocalStorage } from 'node:async_hooks';
import type { ConfirmationDecision, ConfirmFunction } from '@toolsys/core-tool-registry';
import type { AuditSource } from '../audit/audit-entry.js';

/** What one served call knows about its caller. */
export interface CallScope {
  /** Asks the caller's user; absent when the client cannot ask (no elicitation). */
  readonly confirm?: ConfirmFunction;
  /** Set when a confirmation was needed but nobody could answer it. */
  unanswered: boolean;
  /** Where the call came in (for the audit log). */
  readonly source?: AuditSource;
  /** The name the MCP client gave in its `clientInfo` (for the audit log). */
  readonly clientName?: string;
}

const storage = new AsyncLocalStorage<CallScope>();

/** Runs `work` with `scope` as the current call's scope. */
export function runInCallScope<T>(scope: CallScope, work: () => Promise<T>): Promise<T> {
  return storage.run(scope, work);
}

/** The scope of the call being served, if any (none for `toolsys call`). */
export function currentCallScope(): CallScope | undefined {
  return storage.getStore();
}

/**
 * The deployment-wide confirm function of a server: it forwards each question to the confirm of
 * the call being served (MCP elicitation, the dashboard), and denies when the caller cannot ask,
 * marking the call so the server can say why.
 */
export const scopedConfirm: ConfirmFunction = async (
  request,
  signal,
): Promise<ConfirmationDecision> => {
  const scope = storage.getStore();
  if (!scope?.confirm) {
    if (scope) scope.unanswered = true;
    return 'deny';
  }
  return scope.confirm(request, signal);
};
