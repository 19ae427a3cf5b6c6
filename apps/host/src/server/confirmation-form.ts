import type { ElicitRequestFormParams } from '@modelcontextprotocol/server';
import type { ConfirmationDecision, ConfirmationRequest } from '@toolsys/core-tool-registry';
import { confirmationLines } from '../confirmation-text.js';

/** How long a question to the user waits for the answer before it counts as a denial. */
export const CONFIRMATION_TIMEOUT_MS = 10 * 60_000;

const DECISIONS: readonly ConfirmationDecision[] = [
  'allow_once',
  'allow_session',
  'allow_always',
  'deny',
];

/** The form elicitation that asks the user to confirm a call (the same in both protocol eras). */
export function confirmationForm(request: ConfirmationRequest): ElicitRequestFormParams {
  return {
    mode: 'form',
    // The request arrives escaped (the deployment's confirm escapes every question).
    message: confirmationLines(request).join('\n'),
    requestedSchema: {
      type: 'object',
      properties: {
        decision: {
          type: 'string',
          title: 'Allow this call?',
          description:
            'allow_once: this call only; allow_session: until the session ends; allow_always: from now on; deny: refuse.',
          enum: [...DECISIONS],
          default: 'deny',
        },
      },
      required: ['decision'],
    },
  };
}

/** The decision an elicitation answer carries; anything but an accepted known decision denies. */
export function decisionOf(answer: unknown): ConfirmationDecision {
  if (typeof answer !== 'object' || answer === null) return 'deny';
  const { action, content } = answer as { action?: unknown; content?: unknown };
  if (action !== 'accept' || typeof content !== 'object' || content === null) return 'deny';
  const decision = (content as { decision?: unknown }).decision;
  return DECISIONS.includes(decision as ConfirmationDecision)
    ? (decision as ConfirmationDecision)
    : 'deny';
}
