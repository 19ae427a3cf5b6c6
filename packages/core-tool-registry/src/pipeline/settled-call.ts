/**
 * What an executor tells its observer about each finished call: who called which tool, what the
 * risk gate decided and how the call ended. Audit logs are built on it.
 */
import type { CallPrincipal, ConfirmFunction } from '../contract/tool.js';
import type { ToolRisk } from '../contract/tool-metadata.js';
import type { ToolResult } from '../contract/tool-result.js';
import type { GateDenial } from '../policies/tool-execution-gate.js';

/**
 * What the risk gate (and a self-gated tool's own questions) decided: let through without asking,
 * let through after the user allowed it, refused, or never reached (an unknown tool, or one the
 * environment gate refused first).
 */
export type CallDecision = 'allowed' | 'asked-and-allowed' | 'denied' | 'not-reached';

/** One call as {@link ToolExecutorOptions.onSettled} receives it. */
export interface SettledCall {
  readonly callId: string;
  /** The id the caller named (an unknown one included). */
  readonly toolId: string;
  readonly sessionId: string;
  /** Who called, when the caller said. */
  readonly principal?: CallPrincipal | undefined;
  /** The call's risk (the tool's, raised by its arguments); absent for an unknown tool. */
  readonly risk?: ToolRisk | undefined;
  readonly decision: CallDecision;
  /** Who or what refused, when `decision` is `denied`. */
  readonly deniedBy?: GateDenial | undefined;
  /** The arguments as given: the observer must not keep or log their values. */
  readonly rawArgs: unknown;
  /** The call's final result. */
  readonly result: ToolResult;
  /** Wall-clock time from `execute` to the result, in ms. */
  readonly durationMs: number;
}

/** The gate's decision as a call collects it (mutable while the call runs). */
export interface DecisionRecord {
  decision: CallDecision;
  deniedBy?: GateDenial | undefined;
  risk?: ToolRisk | undefined;
}

/** Tells `observer` of a settled call; what it throws is ignored (it must not fail the call). */
export function notifySettled(observer: (call: SettledCall) => void, call: SettledCall): void {
  try {
    observer(call);
  } catch {
    // An observer that fails must not fail the call.
  }
}

/**
 * The call's confirm, noting on `record` what a self-gated tool's own questions got: an answer
 * that allows makes the call asked-and-allowed, a "deny" makes it denied by the user.
 */
export function observedConfirm(
  confirm: ConfirmFunction | undefined,
  record: DecisionRecord | undefined,
): ConfirmFunction | undefined {
  if (!confirm || !record) return confirm;
  return async (request, signal) => {
    const answer = await confirm(request, signal);
    if (answer === 'deny') {
      record.decision = 'denied';
      record.deniedBy = 'user';
    } else if (record.decision === 'allowed') {
      record.decision = 'asked-and-allowed';
    }
    return answer;
  };
}
