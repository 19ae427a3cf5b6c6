import { expect } from 'vitest';
import type { Harness } from './harness.js';

/** Opens a session through terminal.create and checks it starts idle; returns its id. */
export async function newSession(
  harness: Harness,
  args: Record<string, unknown> = {},
): Promise<string> {
  const created = await harness.data<{ sessionId: string; state: string }>('terminal.create', args);
  expect(created.state).toBe('idle');
  return created.sessionId;
}

/** Waits (up to 10 s) through terminal.wait until the session reaches `state`. */
export async function waitForState(
  harness: Harness,
  sessionId: string,
  state: string,
): Promise<void> {
  const waited = await harness.data<{ matched: boolean }>('terminal.wait', {
    sessionId,
    for: 'state',
    state,
    timeoutMs: 10_000,
  });
  expect(waited.matched).toBe(true);
}
