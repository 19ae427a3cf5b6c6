import type {
  CallToolRequest,
  CallToolResult,
  InputRequiredResult,
  ServerContext,
} from '@modelcontextprotocol/server';
import type {
  ConfirmFunction,
  InputRequest,
  InputResponse,
  ToolResult,
} from '@toolsys/core-tool-registry';
import { artifactContent } from './artifact-content.js';
import { confirmationForm, decisionOf } from './confirmation-form.js';
import { eventForwarder } from './event-forwarder.js';
import { callDigest, InputPendingError, type RoundOptions, runInRounds } from './input-rounds.js';
import { canAnswerAny, elicitingConfirm, legacyRequestInput } from './legacy-input.js';
import type { ListedNames } from './listed-names.js';
import { TOOLSYS_META_KEY, toCallToolResult } from './mcp-tool-mapping.js';
import { type Principal, principalKey } from './principal.js';
import type { ProtocolEra } from './protocol-era.js';
import type { RecentArtifacts } from './recent-artifacts.js';
import { startTaskIfAsked, type TaskStartedListener } from './task-calls.js';
import type { ToolHost } from './tool-host.js';

/** `_meta` key under which a `tools/call` carries arguments that are not an object (see below). */
export const RAW_ARGUMENTS_META_KEY = 'dev.toolsys/rawArguments';

/** What {@link handleToolCall} needs of its server. */
export interface ToolCallSetup {
  readonly host: ToolHost;
  readonly era: ProtocolEra;
  readonly names: ListedNames;
  readonly principal: Principal;
  /** The session id tools see when the transport has none. */
  readonly sessionId: (ctx: ServerContext) => string;
  /** Artifacts this connection was sent (for `resources/list`). */
  readonly listed: RecentArtifacts;
  /** The client's capabilities and name (the initialize's, or this request's envelope). */
  readonly client: () => {
    capabilities: import('@modelcontextprotocol/server').ClientCapabilities | undefined;
    name: string | undefined;
  };
  /** Told when a call of this connection became a task (status notifications start then). */
  readonly onTaskStarted?: TaskStartedListener;
}

/**
 * Answers a `tools/call` through the host's executor. Over 2025-11-25 a confirmation or input
 * request is a real request to the client (when it announced the capability); over 2026-07-28 it
 * is an `input_required` result with a sealed `requestState`, and the call runs again with the
 * answers. A call that becomes a task (see {@link startTaskIfAsked}) is answered with the task.
 */
export async function handleToolCall(
  setup: ToolCallSetup,
  request: CallToolRequest,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult | Record<string, unknown>> {
  const { host, names, principal } = setup;
  const name = names.idOf(request.params.name);
  const meta = request.params._meta as Record<string, unknown> | undefined;
  const args =
    meta !== undefined && RAW_ARGUMENTS_META_KEY in meta
      ? meta[RAW_ARGUMENTS_META_KEY]
      : (request.params.arguments ?? {});
  const task = await startTaskIfAsked(setup, name, args, request, ctx);
  if (task !== undefined) return task;
  const { capabilities, name: clientName } = setup.client();
  const sessionId = setup.sessionId(ctx);
  const events = eventForwarder(ctx, meta?.progressToken as string | number | undefined, name);
  const call = (
    extra: {
      confirm?: ConfirmFunction;
      requestInput?: (r: InputRequest) => Promise<InputResponse>;
    },
    signal: AbortSignal,
  ) =>
    host.call(name, args, {
      source: 'mcp',
      ...(clientName !== undefined ? { clientName } : {}),
      sessionId,
      principal,
      signal,
      onEvent: events.forward,
      ...extra,
      ...traceContextOf(meta),
    });
  let result: ToolResult;
  if (setup.era === 'legacy') {
    result = await call(
      {
        ...(capabilities?.elicitation ? { confirm: elicitingConfirm(ctx) } : {}),
        ...(canAnswerAny(capabilities)
          ? { requestInput: legacyRequestInput(ctx, capabilities) }
          : {}),
      },
      ctx.mcpReq.signal,
    );
  } else {
    // Stateless: a request that starts a call is a turn of its own (a denial in another client's
    // request does not refuse this one).
    if (ctx.mcpReq.requestState() === undefined) host.deployment.permissions.beginTurn(sessionId);
    const round = await runInRounds(roundOptions(setup, ctx, name, args), (ask, signal) => {
      const confirm: ConfirmFunction = async (question) => {
        try {
          return decisionOf(
            await ask({ method: 'elicitation/create', params: confirmationForm(question) }),
          );
        } catch (error) {
          if (error instanceof InputPendingError) return 'deny';
          throw error;
        }
      };
      // Not checked against the request's capabilities here: the SDK answers an input request
      // the client did not declare with -32021 (MissingRequiredClientCapability), as the spec
      // requires.
      const requestInput = async (input: InputRequest): Promise<InputResponse> =>
        (await ask(
          {
            method: input.method,
            params: { ...(input.params ?? {}) },
          } as Parameters<typeof ask>[0],
          input.key,
        )) as InputResponse;
      return call({ ...(capabilities?.elicitation ? { confirm } : {}), requestInput }, signal);
    });
    if ('inputRequired' in round) {
      // The denial this round's confirm returned was nobody's answer: nothing is remembered.
      host.deployment.permissions.beginTurn(sessionId);
      return round.inputRequired;
    }
    result = round.done;
  }
  // Notifications sent after the response would be dropped by the client.
  await events.flush();
  return callToolResultOf(setup, name, result, capabilities);
}

/**
 * A tool's result as the client gets it: content, structured content where the tool declares
 * an object output, and links to the artifacts it returned (served by `resources/read`).
 */
export async function callToolResultOf(
  setup: ToolCallSetup,
  name: string,
  result: ToolResult,
  capabilities: import('@modelcontextprotocol/server').ClientCapabilities | undefined,
): Promise<CallToolResult> {
  const { host, principal } = setup;
  const tool = host.deployment.registry.get(name, principal);
  const data = capabilities?.experimental?.[TOOLSYS_META_KEY] !== undefined;
  if (!result.ok || result.artifacts === undefined) {
    return toCallToolResult(result, { ...(tool ? { tool } : {}), data });
  }
  const artifacts = await artifactContent(result.artifacts, {
    dataDir: host.deployment.config.dataDir,
    owner: principalKey(principal),
    onUnlinked: (artifact, reason) =>
      host.warn(`${name} returned the artifact ${artifact.path}, not linked: ${reason}`),
  });
  for (const linked of artifacts.linked) {
    host.artifacts.add(linked);
    setup.listed.add(linked);
  }
  return toCallToolResult(result, {
    ...(tool ? { tool } : {}),
    data,
    artifactBlocks: artifacts.content,
  });
}

/** The input-required rounds of a call of `toolId` with `args`, bound to its caller. */
export function roundOptions(
  setup: Pick<ToolCallSetup, 'host' | 'principal'>,
  ctx: ServerContext,
  toolId: string,
  args: unknown,
): RoundOptions {
  return {
    ctx,
    key: () => setup.host.deployment.deploymentKey(),
    tool: toolId,
    call: callDigest(toolId, args),
    owner: principalKey(setup.principal),
  };
}

/** The W3C trace context a client sent in a request's `_meta`, if any. */
export function traceContextOf(meta: Record<string, unknown> | undefined): {
  traceContext?: { traceparent: string; tracestate?: string };
} {
  const traceparent = meta?.traceparent;
  if (typeof traceparent !== 'string') return {};
  const tracestate = meta?.tracestate;
  return {
    traceContext: { traceparent, ...(typeof tracestate === 'string' ? { tracestate } : {}) },
  };
}
