import type {
  ConfirmationDecision,
  ConfirmFunction,
  InputRequest,
  InputResponse,
} from '@toolsys/core-tool-registry';

/** A confirmation asked as an input request of the task (an elicitation with one choice). */
export async function confirmThroughInput(
  request: Parameters<ConfirmFunction>[0],
  ask: (request: InputRequest) => Promise<InputResponse>,
): Promise<ConfirmationDecision> {
  const answer = await ask({
    method: 'elicitation/create',
    params: {
      message: `${request.toolId} (${request.risk} risk) wants to: ${request.action}${request.reason ? ` (${request.reason})` : ''}. Allow it?`,
      requestedSchema: {
        type: 'object',
        properties: {
          decision: {
            type: 'string',
            enum: ['allow_once', 'allow_session', 'deny'],
            description: 'Allow this once, allow for the session, or deny.',
          },
        },
        required: ['decision'],
      },
    },
  });
  const content = answer.content as Record<string, unknown> | undefined;
  const decision = content?.decision;
  if (answer.action !== 'accept') return 'deny';
  return decision === 'allow_once' || decision === 'allow_session' ? decision : 'deny';
}
