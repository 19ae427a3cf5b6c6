import type { ToolEnvironmentRule } from '../policies/environment-gate.js';
import type { ToolRunPolicy } from '../policies/tool-run-policy.js';
import type { ToolArgumentLimits } from './argument-limits.js';
import type { ToolGrantGroup, ToolMetadata, ToolMetadataInput } from './tool-metadata.js';
import type { ToolResult } from './tool-result.js';
import type { ToolSchema } from './tool-schema.js';

/** An event a running tool emits: progress, or a chunk of streamed output. */
export type ToolEvent =
  | {
      readonly type: 'progress';
      /** Work done so far, in the unit of `total`. */
      readonly progress: number;
      readonly total?: number;
      readonly message?: string;
    }
  | {
      readonly type: 'output';
      /** Which stream the chunk belongs to. */
      readonly stream: 'stdout' | 'stderr' | 'log';
      readonly text: string;
    };

/** A question the tool (or the risk gate) asks the user before acting. */
export interface ConfirmationRequest {
  readonly toolId: string;
  /** What is about to happen, in one sentence (e.g. the shell command). */
  readonly action: string;
  readonly risk: ToolMetadata['risk'];
  readonly sessionId: string;
  /** Why confirmation is needed. */
  readonly reason?: string;
  /** Who is calling: the answer ("for the session", "always") is remembered for this principal only. */
  readonly principal?: CallPrincipal;
  /**
   * The group an "allow for the session" answer covers besides this tool, when the tool belongs
   * to one and the call is not HIGH risk; a question says what it covers.
   */
  readonly grantGroup?: ToolGrantGroup;
}

/** The user's answer to a confirmation. */
export type ConfirmationDecision = 'allow_once' | 'allow_session' | 'allow_always' | 'deny';

/** Asks the user; injected by the host (CLI prompt, MCP elicitation, a test). */
export type ConfirmFunction = (
  request: ConfirmationRequest,
  signal?: AbortSignal,
) => Promise<ConfirmationDecision>;

/**
 * Who is calling: an OAuth token's subject, a named token, or `local` (stdio, tokenless
 * loopback, the CLI). Set by the host that authenticated the caller; tools may scope what they
 * keep to it.
 */
export interface CallPrincipal {
  /** The OAuth `sub`, the named token's name, or `local`. */
  readonly id: string;
  /** How the caller proved who it is. */
  readonly kind: 'oauth' | 'token' | 'local';
  /** The OAuth client the token was issued to, when known. */
  readonly clientId?: string;
  /** The scopes the caller holds (`*`: a named token without scope limits). */
  readonly scopes: readonly string[];
}

/** Everything a handler receives besides its arguments. */
export interface ToolContext {
  /** Unique id of this call (shared by its attempts). */
  readonly callId: string;
  /** The agent session the call belongs to. */
  readonly sessionId: string;
  /** Who is calling, when the host says (absent when the executor is embedded without one). */
  readonly principal?: CallPrincipal;
  /** 1 for the first attempt, 2 for the first retry … */
  readonly attempt: number;
  /** Fires when the call is cancelled or times out; handlers must stop work. */
  readonly signal: AbortSignal;
  /** Emits progress or streamed output to the caller. Never throws. */
  emit(event: ToolEvent): void;
  /** Asks the user to confirm an action (denies when nobody can answer). */
  confirm(
    request: Omit<ConfirmationRequest, 'sessionId' | 'toolId'> & { toolId?: string },
  ): Promise<ConfirmationDecision>;
  /**
   * Asks the calling client for input while the tool runs — a form (elicitation), a completion
   * from its model (sampling), or its roots — and resolves with the client's answer (the
   * protocol's result JSON). Absent when the caller cannot answer (a CLI, a client without the
   * capability). Over MCP 2026-07-28 a call that asks is answered with an input-required result
   * and run again with the answers, each request getting its answer in order: ask before any
   * side effect, with the same requests on every run.
   */
  readonly requestInput?: (request: InputRequest) => Promise<InputResponse>;
}

/**
 * What a tool may ask its client for while it runs (see {@link ToolContext.requestInput}).
 * `key`, when given, names the request in a 2026-07-28 input-required result (unique per call);
 * without it the server names requests by their order.
 */
export type InputRequest = (
  | { readonly method: 'elicitation/create'; readonly params: Readonly<Record<string, unknown>> }
  | {
      readonly method: 'sampling/createMessage';
      readonly params: Readonly<Record<string, unknown>>;
    }
  | { readonly method: 'roots/list'; readonly params?: Readonly<Record<string, unknown>> }
) & { readonly key?: string };

/** The client's answer to an {@link InputRequest}: the protocol's result object for its method. */
export type InputResponse = Readonly<Record<string, unknown>>;

/** What a handler may return: a result, or plain text meaning success. */
export type ToolReturn = ToolResult | string;

/** A tool: schema, metadata and the function, declared in that order. */
export interface ToolDefinition<TArgs = Record<string, unknown>> {
  /** Globally unique id, exactly as in the spec (`read_page`, `demo.echo`): lowercase words joined by `_` or `.`. */
  readonly id: string;
  /**
   * A short human-readable name for lists and dialogs (`Read file`). Default: made from the id by
   * whoever displays it.
   */
  readonly title?: string;
  /** What it does, when to use it (and when not), what it returns, its limits. */
  readonly description: string;
  /** Argument schema: validator and rendered JSON Schema in one. */
  readonly inputSchema: ToolSchema<TArgs>;
  /** Schema of `data` in successful results, when the tool returns structure. */
  readonly outputSchema?: ToolSchema<unknown>;
  /** Category, risk, tags and hints, all declared: the kernel guesses none of them. */
  readonly metadata: ToolMetadataInput;
  /** Timeout, retries and rate limit; legacy when absent. */
  readonly runPolicy?: ToolRunPolicy;
  /** Preconditions on environment telemetry, checked fail-open by the environment gate. */
  readonly environmentRules?: readonly ToolEnvironmentRule[];
  /**
   * Bounds on the size, entry count and depth of one call's arguments, checked before validation
   * (over them: INVALID_ARGUMENT naming the limit). Fields left out take the defaults of
   * `DEFAULT_ARGUMENT_LIMITS`; a schema's largest `maxLength` raises the character bound.
   */
  readonly argumentLimits?: Partial<ToolArgumentLimits>;
  /**
   * The risk of one call when it depends on the arguments (a clipboard tool's set is MEDIUM, its get LOW),
   * evaluated by the risk gate before validation, so it receives the raw arguments and must check
   * their shape itself. It can only raise the declared `metadata.risk`; throwing counts as HIGH.
   */
  riskOf?(rawArgs: unknown): ToolMetadata['risk'];
  /**
   * The revision of a tool defined at run time (a digest of its definition): permission grants
   * name it, so a grant given for one definition never covers another one under the same id.
   * Absent for tools whose definition only changes with the code.
   */
  readonly revision?: string;
  /**
   * The {@link principalKey} of whoever defined this tool at run time (a shortcut or a skill):
   * only that principal sees and calls it, and the registry keeps it apart from every other
   * principal's tool of the same id. Absent for tools every caller may see. (Not `owner`: a
   * registered tool's `owner` names the package that registered it.)
   */
  readonly definedBy?: string;
  /** The function. Expected failures are returned; anything thrown becomes a failure result. */
  execute(args: TArgs, context: ToolContext): Promise<ToolReturn> | ToolReturn;
}

/** A tool as the registry holds it: metadata resolved, owner known. */
export interface RegisteredTool<TArgs = Record<string, unknown>> extends ToolDefinition<TArgs> {
  readonly metadata: ToolMetadata;
  /** The package (or component) that registered it. */
  readonly owner: string;
}

/** Declares a tool with its argument type inferred from the schema. */
export function defineTool<TArgs>(definition: ToolDefinition<TArgs>): ToolDefinition<TArgs> {
  return definition;
}

/** A tool of any argument type. */
// biome-ignore lint/suspicious/noExplicitAny: tools of different argument types share one list.
export type AnyToolDefinition = ToolDefinition<any>;
