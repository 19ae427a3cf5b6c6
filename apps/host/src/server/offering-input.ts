import type {
  ClientCapabilities,
  InputRequiredResult,
  ServerContext,
  InputRequest as WireInputRequest,
} from '@modelcontextprotocol/server';
import type { InputRequest, InputResponse } from '@toolsys/core-tool-registry';
import type { DeploymentKey } from '../deployment-key.js';
import { callDigest, runInRounds } from './input-rounds.js';
import { canAnswerAny, legacyRequestInput } from './legacy-input.js';
import type { OfferingCaller } from './offerings.js';
import { principalKey } from './principal.js';
import type { ProtocolEra } from './protocol-era.js';

/**
 * The caller an offering is handed by this server: besides who asks, how to ask the client for
 * input while answering `prompts/get` or `resources/read` (absent when the client cannot). An
 * offering that wants it reads `requestInput` (an optional, additive member: the
 * {@link OfferingCaller} contract does not name it yet).
 */
export interface InputCapableCaller extends OfferingCaller {
  readonly requestInput?: (request: InputRequest) => Promise<InputResponse>;
}

/** What {@link withOfferingInput} needs of its server. */
export interface OfferingInputSetup {
  readonly era: ProtocolEra;
  readonly key: () => Promise<DeploymentKey>;
  readonly capabilities: () => ClientCapabilities | undefined;
}

/**
 * Runs an offering's answer with input from the client: over 2025-11-25 real requests to it
 * (when it announced the capability), over 2026-07-28 `input_required` rounds bound to `what`
 * (the method and its target), the answer computed again with each new response.
 */
export async function withOfferingInput<T>(
  setup: OfferingInputSetup,
  ctx: ServerContext,
  caller: OfferingCaller,
  what: { readonly method: string; readonly target: unknown },
  work: (caller: InputCapableCaller) => Promise<T>,
): Promise<T | InputRequiredResult> {
  if (setup.era === 'legacy') {
    const capabilities = setup.capabilities();
    return work(
      canAnswerAny(capabilities)
        ? { ...caller, requestInput: legacyRequestInput(ctx, capabilities) }
        : caller,
    );
  }
  const round = await runInRounds(
    {
      ctx,
      key: setup.key,
      tool: what.method,
      call: callDigest(what.method, what.target),
      owner: principalKey(caller.principal),
    },
    (ask) =>
      work({
        ...caller,
        requestInput: async (input) =>
          (await ask(
            {
              method: input.method,
              params: { ...(input.params ?? {}) },
            } as WireInputRequest,
            input.key,
          )) as InputResponse,
      }),
  );
  return 'inputRequired' in round ? round.inputRequired : round.done;
}
