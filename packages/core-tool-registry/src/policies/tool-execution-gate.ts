import type { CallPrincipal, ConfirmFunction, RegisteredTool } from '../contract/tool.js';
import { permissionDeniedFailure } from '../contract/tool-failures.js';
import type { ToolRisk } from '../contract/tool-metadata.js';
import type { ToolFailure } from '../contract/tool-result.js';
import { type ArgumentDescription, describeArguments } from './describe-arguments.js';
import type {
  GrantTarget,
  PermissionVerdict,
  ToolPermissionManager,
} from './tool-permission-manager.js';

/** What a gate needs to know about the call. */
export interface GateContext {
  readonly sessionId: string;
  /** Who is calling: grants are remembered per principal (absent: the local user). */
  readonly principal?: CallPrincipal | undefined;
  readonly callId: string;
  readonly signal: AbortSignal;
  /**
   * The call's own confirm (the executor's, or the one given for this call): asked when the
   * permission manager has none of its own, so one confirm serves the whole pipeline.
   */
  readonly confirm?: ConfirmFunction | undefined;
}

/**
 * Who or what refused a call at the risk gate: the risk's policy, the user (now or earlier in the
 * turn), or nobody could be asked (no confirm, or arguments that cannot all be shown).
 */
export type GateDenial = 'policy' | 'user' | 'unanswered';

/** A gate's decision. */
export type GateVerdict =
  | {
      readonly allowed: true;
      /** The user was asked for this call and allowed it. */
      readonly asked?: true;
      /**
       * The deployment's configuration allows every action of this self-gated tool (its risk's
       * policy is "allow", or its allow-list names it): the tool's own questions are answered
       * "allow once" without asking anyone.
       */
      readonly preapproved?: true;
    }
  | {
      readonly allowed: false;
      readonly result: ToolFailure;
      /** Who or what refused; absent from gates that do not say. */
      readonly deniedBy?: GateDenial;
    };

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
/** Lets a self-gated call through with its own questions answered by the configuration. */
const PREAPPROVED: GateVerdict = Object.freeze({ allowed: true, preapproved: true });
/** Lets a call through that the user was just asked about. */
const ASKED: GateVerdict = Object.freeze({ allowed: true, asked: true });

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
    const risk = callRisk(tool, rawArgs);
    const gatesItself = tool.metadata.gatesItself === true;
    const target = grantTargetOf(tool, risk, context);
    const settled = this.#permissions.decide(tool.id, risk, context.sessionId, gatesItself, target);
    if (
      settled?.allowed &&
      (settled.via === 'configured' || (gatesItself && settled.via === 'policy'))
    )
      return PREAPPROVED;
    // Settled without asking: a denial is the policy's, or the user's earlier in this turn.
    if (settled) return this.#verdict(settled, tool.id, context.sessionId, target, 'policy');
    return this.#ask(tool, risk, rawArgs, context, target);
  }

  async #ask(
    tool: RegisteredTool,
    risk: ToolRisk,
    rawArgs: unknown,
    context: GateContext,
    target: GrantTarget,
  ): Promise<GateVerdict> {
    const action = summariseAction(tool.id, rawArgs);
    if (!action.ok) {
      // The user approves what is shown; a prompt that leaves out part of the call is never shown.
      return {
        allowed: false,
        result: permissionDeniedFailure(
          `${tool.id} needs the user's confirmation, but its arguments cannot all be shown (${action.reason}), so the user was not asked.`,
          'Split the work into smaller calls with fewer, flatter arguments, then retry.',
          { reason: 'unshowable_arguments' },
        ),
        deniedBy: 'unanswered',
      };
    }
    const verdict = await this.#permissions.authorize(
      {
        toolId: tool.id,
        action: action.text,
        risk,
        sessionId: context.sessionId,
        ...(target.principal ? { principal: target.principal } : {}),
        ...(target.grantGroup ? { grantGroup: target.grantGroup } : {}),
        reason: tool.metadata.annotations.destructiveHint
          ? 'This tool can change or delete data.'
          : `This tool is ${risk} risk.`,
      },
      context.signal,
      context.confirm,
      target,
    );
    // Asked: a denial is the user's answer (remembered for the turn), else nobody could answer.
    return this.#verdict(verdict, tool.id, context.sessionId, target, 'unanswered');
  }

  /**
   * The gate's verdict for the manager's. The manager remembers a user's "deny" for the turn and
   * nothing else, so a denial with that state is the user's and any other is `otherwise`.
   */
  #verdict(
    verdict: PermissionVerdict,
    toolId: string,
    sessionId: string,
    target: GrantTarget,
    otherwise: GateDenial,
  ): GateVerdict {
    if (verdict.allowed) return verdict.via === 'confirmed' ? ASKED : ALLOWED;
    const byUser = this.#permissions.state(sessionId, toolId, target) === 'denied_turn';
    return {
      allowed: false,
      result: permissionDeniedFailure(verdict.reason, verdict.hint),
      deniedBy: byUser ? 'user' : otherwise,
    };
  }
}

/**
 * Whose grant decides the call: the caller (the context itself, so nothing is allocated), the
 * tool's revision when it has one, and, for a tool in a grant group whose call is not HIGH risk,
 * the group.
 */
function grantTargetOf(tool: RegisteredTool, risk: ToolRisk, context: GateContext): GrantTarget {
  const group = risk === 'HIGH' ? undefined : tool.metadata.grantGroup;
  const revision = tool.revision;
  if (group === undefined && revision === undefined) return context;
  return { principal: context.principal, grantGroup: group, revision };
}

const RISK_ORDER: Readonly<Record<ToolRisk, number>> = { LOW: 0, MEDIUM: 1, HIGH: 2 };

/**
 * The risk of one call: the tool's declared risk, raised (never lowered) by what its `riskOf`
 * says of these arguments. A `riskOf` that throws counts as HIGH.
 */
export function callRisk(tool: RegisteredTool, rawArgs: unknown): ToolRisk {
  const declared = tool.metadata.risk;
  if (!tool.riskOf) return declared;
  let risk: ToolRisk;
  try {
    risk = tool.riskOf(rawArgs);
  } catch {
    risk = 'HIGH';
  }
  return RISK_ORDER[risk] > RISK_ORDER[declared] ? risk : declared;
}

/**
 * What a confirmation prompt shows of a call: every argument, one field a line, the fields that
 * decide what runs first (see {@link describeArguments}); `ok: false` when they cannot all be
 * shown, and then no one may be asked.
 */
export function summariseAction(_toolId: string, rawArgs: unknown): ArgumentDescription {
  return describeArguments(rawArgs);
}
