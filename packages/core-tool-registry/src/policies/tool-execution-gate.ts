import type { RegisteredTool } from '../contract/tool.js';
import { ToolErrorCode } from '../contract/tool-error.js';
import { failureResult, type ToolFailure } from '../contract/tool-result.js';
import type { PermissionVerdict, ToolPermissionManager } from './tool-permission-manager.js';

/** What a gate needs to know about the call. */
export interface GateContext {
  readonly sessionId: string;
  readonly callId: string;
  readonly signal: AbortSignal;
}

/** A gate's decision. */
export type GateVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly result: ToolFailure };

/** Decides whether a call may run before its arguments are validated. */
export interface ToolExecutionGate {
  check(
    tool: RegisteredTool,
    rawArgs: unknown,
    context: GateContext,
  ): Promise<GateVerdict> | GateVerdict;
}

/** Lets every call through. */
export const ALLOW_ALL_GATE: ToolExecutionGate = { check: () => ({ allowed: true }) };

/** Lets a call through (shared: a verdict is never mutated). */
const ALLOWED: GateVerdict = Object.freeze({ allowed: true });

/**
 * The risk gate: asks the permission manager for MEDIUM and HIGH risk tools. A call that policy or
 * remembered state settles is decided synchronously; the prompt summary (which serialises the
 * arguments) is built only when the user is actually asked.
 */
export class RiskAwareToolGate implements ToolExecutionGate {
  readonly #permissions: ToolPermissionManager;

  constructor(permissions: ToolPermissionManager) {
    this.#permissions = permissions;
  }

  check(
    tool: RegisteredTool,
    rawArgs: unknown,
    context: GateContext,
  ): Promise<GateVerdict> | GateVerdict {
    const settled = this.#permissions.decide(tool.id, tool.metadata.risk, context.sessionId);
    if (settled) return toGateVerdict(settled);
    return this.#ask(tool, rawArgs, context);
  }

  async #ask(tool: RegisteredTool, rawArgs: unknown, context: GateContext): Promise<GateVerdict> {
    const verdict = await this.#permissions.authorize(
      {
        toolId: tool.id,
        action: summariseAction(tool.id, rawArgs),
        risk: tool.metadata.risk,
        sessionId: context.sessionId,
        reason: tool.metadata.annotations.destructiveHint
          ? 'This tool can change or delete data.'
          : `This tool is ${tool.metadata.risk} risk.`,
      },
      context.signal,
    );
    return toGateVerdict(verdict);
  }
}

function toGateVerdict(verdict: PermissionVerdict): GateVerdict {
  if (verdict.allowed) return ALLOWED;
  return {
    allowed: false,
    result: failureResult(ToolErrorCode.PERMISSION_DENIED, verdict.reason, {
      hint: verdict.hint,
    }),
  };
}

const MAX_ACTION_LENGTH = 300;

/** Argument keys whose values never appear in a prompt: credentials and session material. */
const SECRET_KEY = /authorization|cookie|token|password|passwd|secret|api[-_]?key|credential/i;

function redactSecrets(key: string, value: unknown): unknown {
  return key !== '' &&
    SECRET_KEY.test(key) &&
    (typeof value === 'string' || typeof value === 'number')
    ? '[redacted]'
    : value;
}

/** A one-line description of a call for a confirmation prompt. */
export function summariseAction(toolId: string, rawArgs: unknown): string {
  let args: string;
  try {
    args = JSON.stringify(rawArgs, redactSecrets) ?? '';
  } catch {
    args = '[unserialisable arguments]';
  }
  const text = `${toolId} ${args}`;
  return text.length > MAX_ACTION_LENGTH ? `${text.slice(0, MAX_ACTION_LENGTH - 1)}…` : text;
}
