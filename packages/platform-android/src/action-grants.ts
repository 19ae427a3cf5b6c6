import type { ConfirmationDecision } from '@toolsys/core-tool-registry';

/**
 * What the user allowed for an action a tool confirms itself (the write path of a tool whose read
 * path asks nothing, such as `clipboard` set): "allow for this session" lasts until the client
 * session ends, "always" until the tools are disposed. Nothing is shared between sessions.
 */
export class ActionGrants {
  readonly #session = new Map<string, Set<string>>();
  readonly #always = new Set<string>();

  /** Whether the action is allowed without asking in this client session. */
  isAllowed(sessionId: string, action: string): boolean {
    return this.#always.has(action) || (this.#session.get(sessionId)?.has(action) ?? false);
  }

  /** Remembers the user's answer (once and deny leave nothing behind). */
  record(sessionId: string, action: string, decision: ConfirmationDecision): void {
    if (decision === 'allow_always') this.#always.add(action);
    if (decision !== 'allow_session') return;
    let actions = this.#session.get(sessionId);
    if (!actions) {
      actions = new Set();
      this.#session.set(sessionId, actions);
    }
    actions.add(action);
  }

  /** Forgets what a client session was allowed. */
  endSession(sessionId: string): void {
    this.#session.delete(sessionId);
  }
}
