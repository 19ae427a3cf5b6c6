import type { ClientCapabilities, ServerContext } from '@modelcontextprotocol/server';
import type { ConfirmFunction, InputRequest, InputResponse } from '@toolsys/core-tool-registry';
import { CONFIRMATION_TIMEOUT_MS, confirmationForm, decisionOf } from './confirmation-form.js';

/** The client capability each input request needs. */
const CAPABILITY_OF: Readonly<Record<InputRequest['method'], keyof ClientCapabilities>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** Why an input request cannot be asked: the client did not announce the capability. */
export class InputUnavailableError extends Error {
  constructor(method: string, capability: string) {
    super(
      `The client cannot answer ${method}: it did not announce the "${capability}" capability. Go on without this input or tell the user what is needed.`,
    );
    this.name = 'InputUnavailableError';
  }
}

/** Whether a client that announced `capabilities` can answer `method`; throws when not. */
export function assertCanAnswer(
  method: InputRequest['method'],
  capabilities: ClientCapabilities | undefined,
): void {
  const capability = CAPABILITY_OF[method];
  if (capability === undefined) throw new InputUnavailableError(String(method), 'unknown');
  if (capabilities?.[capability] === undefined) {
    throw new InputUnavailableError(method, capability);
  }
}

/** Whether a client that announced `capabilities` can answer any input request at all. */
export function canAnswerAny(capabilities: ClientCapabilities | undefined): boolean {
  return Object.values(CAPABILITY_OF).some((key) => capabilities?.[key] !== undefined);
}

/** 2025-11-25: asks the client's user through a form elicitation tied to the tool call. */
export function elicitingConfirm(ctx: ServerContext): ConfirmFunction {
  return async (request, signal) => {
    const answer = await ctx.mcpReq.elicitInput(confirmationForm(request), {
      timeout: CONFIRMATION_TIMEOUT_MS,
      ...(signal ? { signal } : {}),
    });
    return decisionOf(answer);
  };
}

/**
 * 2025-11-25: a tool's input request becomes a real server-to-client request tied to the call
 * (elicitation, sampling or roots), allowed only when the client announced the capability.
 */
export function legacyRequestInput(
  ctx: ServerContext,
  capabilities: ClientCapabilities | undefined,
): (request: InputRequest) => Promise<InputResponse> {
  return async (request) => {
    assertCanAnswer(request.method, capabilities);
    const answer = await ctx.mcpReq.send(
      { method: request.method, params: { ...(request.params ?? {}) } },
      { timeout: CONFIRMATION_TIMEOUT_MS, signal: ctx.mcpReq.signal },
    );
    return answer as InputResponse;
  };
}
