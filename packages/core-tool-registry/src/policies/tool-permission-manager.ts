import type {
  CallPrincipal,
  ConfirmationDecision,
  ConfirmationRequest,
  ConfirmFunction,
} from '../contract/tool.js';
import type { ToolGrantGroup, ToolRisk } from '../contract/tool-metadata.js';
import { grantKey, groupGrantSubject } from './grant-keys.js';

/** What the policy says for a risk level before anyone is asked. */
export type RiskPolicy = 'allow' | 'ask' | 'deny';

/** Where a (principal, session, tool) triple stands. */
export type PermissionState = 'ask' | 'allowed_session' | 'allowed_always' | 'denied_turn';

/** The answer of {@link ToolPermissionManager.authorize}. */
export type PermissionVerdict =
  | {
      readonly allowed: true;
      /**
       * Why: the risk's policy, a tool that asks per action itself (`self_gated`; `configured`
       * when this deployment's own allow-list also names it, so its questions need no answer),
       * a remembered grant, or the user's answer now.
       */
      readonly via: 'policy' | 'self_gated' | 'configured' | 'always' | 'session' | 'confirmed';
    }
  | { readonly allowed: false; readonly reason: string; readonly hint: string };

/** A remembered grant that {@link PermissionDecisionStore.fetch} found. */
export type RememberedGrant = 'allowed_always' | 'allowed_session';

/**
 * Where a {@link ToolPermissionManager} remembers "allow for the session" and "always" grants.
 * Reads are synchronous (what this process knows), so remembered calls cost no await; a store
 * shared between processes also implements `fetch`, consulted before the user is asked.
 *
 * The store keeps opaque grant keys: the manager names each grant by its principal and its
 * subject (a tool id, or a grant group) with {@link grantKey}, so one principal's grant never
 * matches another's, and a session's grants are those of every principal that used its id.
 */
export interface PermissionDecisionStore {
  /** Whether the grant `key` is allowed always, as far as this process knows. */
  isAllowedAlways(key: string): boolean;
  /** Whether the grant `key` is allowed for `sessionId`, as far as this process knows. */
  isAllowedForSession(sessionId: string, key: string): boolean;
  /** Remembers an "always" grant. */
  allowAlways(key: string): void;
  /** Remembers an "allow for the session" grant. */
  allowForSession(sessionId: string, key: string): void;
  /** Revokes an "always" grant. */
  revokeAlways(key: string): void;
  /** Forgets the session's grants, every principal's. */
  forgetSession(sessionId: string): void;
  /**
   * Looks a grant up where other processes record theirs, when this process knows none: "always"
   * under `alwaysKey`, "for the session" under `sessionKey` (default `alwaysKey`). Must settle (to
   * undefined when the shared store cannot answer) within a bounded time.
   */
  fetch?(
    sessionId: string,
    alwaysKey: string,
    sessionKey?: string,
  ): Promise<RememberedGrant | undefined>;
}

/**
 * Whose grant a decision is about, besides the session: the caller, and the tool's grant group.
 * The gate passes its call context (which has the principal) with the tool's group.
 */
export interface GrantTarget {
  /** Who is calling. Absent: the local user. */
  readonly principal?: CallPrincipal | undefined;
  /**
   * The tool's grant group: an "allow for the session" answer covers the group. Ignored for a
   * HIGH risk call (asked per tool) when the manager decides; {@link ToolPermissionManager.record}
   * uses it as given.
   */
  readonly grantGroup?: ToolGrantGroup | undefined;
  /**
   * The tool definition's revision (see `ToolDefinition.revision`): a grant given for one
   * revision never holds for another, so a redefined tool is asked for again.
   */
  readonly revision?: string | undefined;
}

/** Who a question is about: its principal, and its grant group unless the call is HIGH risk. */
function targetOf(request: ConfirmationRequest): GrantTarget | undefined {
  if (request.principal === undefined && request.grantGroup === undefined) return undefined;
  return {
    principal: request.principal,
    grantGroup: request.risk === 'HIGH' ? undefined : request.grantGroup,
  };
}

/** The target without its grant group (a HIGH risk call is asked per tool). */
function ungrouped(target: GrantTarget | undefined): GrantTarget | undefined {
  return target?.grantGroup === undefined
    ? target
    : { principal: target.principal, revision: target.revision };
}

/** What a grant on the tool is about: its id, and its revision when it has one. */
function grantSubject(toolId: string, target: GrantTarget | undefined): string {
  const revision = target?.revision;
  return revision === undefined ? toolId : `${toolId}@${revision}`;
}

/** The in-process {@link PermissionDecisionStore}: two sets, the default of the manager. */
export class InMemoryPermissionStore implements PermissionDecisionStore {
  readonly #always: Set<string>;
  readonly #session = new Map<string, Set<string>>();

  /** `alwaysAllowed`: tools allowed always from the start. */
  constructor(alwaysAllowed: Iterable<string> = []) {
    this.#always = new Set(alwaysAllowed);
  }

  isAllowedAlways(toolId: string): boolean {
    return this.#always.has(toolId);
  }

  isAllowedForSession(sessionId: string, toolId: string): boolean {
    return this.#session.get(sessionId)?.has(toolId) === true;
  }

  allowAlways(toolId: string): void {
    this.#always.add(toolId);
  }

  allowForSession(sessionId: string, toolId: string): void {
    let set = this.#session.get(sessionId);
    if (!set) {
      set = new Set();
      this.#session.set(sessionId, set);
    }
    set.add(toolId);
  }

  revokeAlways(toolId: string): void {
    this.#always.delete(toolId);
  }

  forgetSession(sessionId: string): void {
    this.#session.delete(sessionId);
  }
}

/** Options for {@link ToolPermissionManager}. */
export interface ToolPermissionManagerOptions {
  /**
   * Asks the user. Without it, the call's own confirm (the executor's `confirm`) is asked; with
   * neither, every call that needs asking is refused.
   */
  confirm?: ConfirmFunction;
  /** Per-risk policy. Default: LOW allow, MEDIUM ask, HIGH ask. */
  policy?: Partial<Record<ToolRisk, RiskPolicy>>;
  /**
   * Ids of tools that confirm their own actions, besides those that declare `gatesItself` (for a
   * tool a deployment wraps but cannot change). Default: none.
   */
  selfGatedToolIds?: Iterable<string>;
  /**
   * Tools this deployment's own configuration allows always (the host's `permissions.alwaysAllow`).
   * Kept in this manager only, never written to the store: a store shared with other replicas
   * (Redis) must not turn one replica's policy into a grant for replicas with another policy.
   */
  alwaysAllowed?: Iterable<string>;
  /**
   * Tools an operator allowed always for every principal at run time (`toolsys grant <tool>
   * --everyone`), read on each decision: they count as configured ones. Default: none.
   */
  allowedForEveryone?: { has(toolId: string): boolean };
  /**
   * Where the users' answers ("for the session", "always") are remembered, each for the principal
   * who answered. Default: in memory.
   */
  store?: PermissionDecisionStore;
  /**
   * Called when a user answers "always", to persist the choice: it holds for that principal only
   * (all of its sessions). Only the configuration (`alwaysAllowed`, `policy`) allows a tool for
   * every principal.
   */
  onAlwaysAllow?: (toolId: string, principal: CallPrincipal | undefined) => void;
  /**
   * The next step given when a call needs confirming and no one can confirm (no terminal, a client
   * without elicitation): how this host lets the user allow it. Default: the config keys.
   */
  unconfirmableHint?: (request: ConfirmationRequest) => string;
}

/**
 * The default next step when no one can confirm: for an application embedding the executor, the
 * two ways it lets a tool run (a host with a configuration file names its own keys instead).
 */
export function defaultUnconfirmableHint(request: ConfirmationRequest): string {
  return `Do not retry; use a lower-risk tool. To let ${request.toolId} run, the application passes a confirm function to the executor (so the user is asked) or allows it: alwaysAllowed: ["${request.toolId}"], or policy ${request.risk}: "allow", on its ToolPermissionManager.`;
}

const DEFAULT_POLICY: Record<ToolRisk, RiskPolicy> = { LOW: 'allow', MEDIUM: 'ask', HIGH: 'ask' };

const VIA_POLICY: PermissionVerdict = Object.freeze({ allowed: true, via: 'policy' });
const VIA_SELF_GATED: PermissionVerdict = Object.freeze({ allowed: true, via: 'self_gated' });
const VIA_CONFIGURED: PermissionVerdict = Object.freeze({ allowed: true, via: 'configured' });
const VIA_ALWAYS: PermissionVerdict = Object.freeze({ allowed: true, via: 'always' });
const VIA_SESSION: PermissionVerdict = Object.freeze({ allowed: true, via: 'session' });

/**
 * A permission state machine per principal and session. `ask` → (allow once: stays `ask`) |
 * (allow for the session: `allowed_session`, this principal in this session; the tool's whole
 * grant group when it has one) | (always: `allowed_always`, this principal in every session) |
 * (deny: `denied_turn`, refused without asking again until the session's next turn). No answer
 * of one principal ever holds for another: a session id presented by another principal matches
 * none of its grants.
 */
export class ToolPermissionManager {
  readonly selfGatedToolIds: ReadonlySet<string>;
  readonly #confirm: ConfirmFunction | undefined;
  readonly #unconfirmableHint: (request: ConfirmationRequest) => string;
  readonly #policy: Record<ToolRisk, RiskPolicy>;
  readonly #store: PermissionDecisionStore;
  /** The configured allow-list: local to this manager, never in the store. */
  readonly #configured: Set<string>;
  readonly #everyone: { has(toolId: string): boolean } | undefined;
  readonly #deniedThisTurn = new Map<string, Set<string>>();
  readonly #onAlwaysAllow:
    | ((toolId: string, principal: CallPrincipal | undefined) => void)
    | undefined;

  constructor(options: ToolPermissionManagerOptions = {}) {
    this.#confirm = options.confirm;
    this.#unconfirmableHint = options.unconfirmableHint ?? defaultUnconfirmableHint;
    this.#policy = { ...DEFAULT_POLICY, ...options.policy };
    this.selfGatedToolIds = new Set(options.selfGatedToolIds ?? []);
    this.#store = options.store ?? new InMemoryPermissionStore();
    this.#configured = new Set(options.alwaysAllowed ?? []);
    this.#everyone = options.allowedForEveryone;
    this.#onAlwaysAllow = options.onAlwaysAllow;
  }

  /** Where this tool stands for this session and principal (`target`; default: local, no group). */
  state(sessionId: string, toolId: string, target?: GrantTarget): PermissionState {
    const principal = target?.principal;
    const key = grantKey(principal, grantSubject(toolId, target));
    if (this.#isConfigured(toolId) || this.#store.isAllowedAlways(key)) {
      return 'allowed_always';
    }
    if (this.#deniedThisTurn.get(sessionId)?.has(key)) return 'denied_turn';
    const group = target?.grantGroup;
    const sessionKey = group ? grantKey(principal, groupGrantSubject(group.id)) : key;
    if (this.#store.isAllowedForSession(sessionId, sessionKey)) return 'allowed_session';
    return 'ask';
  }

  /** Whether a confirm function is available. */
  get canConfirm(): boolean {
    return this.#confirm !== undefined;
  }

  /** Decides a call: by policy, by remembered state, or by asking the user. */
  async authorize(
    request: ConfirmationRequest,
    signal?: AbortSignal,
    callConfirm?: ConfirmFunction,
    grantTarget?: GrantTarget,
  ): Promise<PermissionVerdict> {
    const target = grantTarget ?? targetOf(request);
    const settled = this.decide(request.toolId, request.risk, request.sessionId, false, target);
    if (settled) return settled;
    const remembered = await this.#fetch(request, target);
    if (remembered === 'allowed_always') return VIA_ALWAYS;
    if (remembered === 'allowed_session') return VIA_SESSION;
    const decision = await this.#ask(request, signal, callConfirm);
    return this.#apply(request, decision, target);
  }

  /**
   * The verdict that policy or remembered state gives without asking anyone, or undefined when
   * the user must be asked (then call {@link authorize}). Synchronous and allocation-free on the
   * allow paths, so callers build a prompt only when one is needed. `target`: who is calling and
   * the tool's grant group (default: the local user, no group).
   */
  decide(
    toolId: string,
    risk: ToolRisk,
    sessionId: string,
    gatesItself = false,
    target?: GrantTarget,
  ): PermissionVerdict | undefined {
    const policy = this.#policy[risk];
    if (policy === 'allow') return VIA_POLICY;
    if (policy === 'deny') {
      return {
        allowed: false,
        reason: `${risk} risk tools are disabled in this deployment.`,
        hint: 'Change approach; this tool cannot be used here.',
      };
    }
    if (gatesItself || this.selfGatedToolIds.has(toolId)) {
      // A user's "always" answer covers the one action it was given for; only the deployment's
      // own allow-list (or the risk's policy, above) lets every action of the tool run unasked.
      return this.#isConfigured(toolId) ? VIA_CONFIGURED : VIA_SELF_GATED;
    }
    const state = this.state(sessionId, toolId, risk === 'HIGH' ? ungrouped(target) : target);
    if (state === 'allowed_always') return VIA_ALWAYS;
    if (state === 'allowed_session') return VIA_SESSION;
    if (state === 'denied_turn') {
      return {
        allowed: false,
        reason: `The user already denied ${toolId} in this turn.`,
        hint: 'Change approach; do not call this tool again in this turn.',
      };
    }
    return undefined;
  }

  /**
   * Records a decision taken elsewhere (e.g. an MCP elicitation answered out of band) for the
   * principal of `target` (default: local); "for the session" covers `target.grantGroup` when
   * given.
   */
  record(
    sessionId: string,
    toolId: string,
    decision: ConfirmationDecision,
    target?: GrantTarget,
  ): void {
    const principal = target?.principal;
    const key = grantKey(principal, grantSubject(toolId, target));
    switch (decision) {
      case 'allow_once':
        return;
      case 'allow_session': {
        const group = target?.grantGroup;
        this.#store.allowForSession(
          sessionId,
          group ? grantKey(principal, groupGrantSubject(group.id)) : key,
        );
        return;
      }
      case 'allow_always':
        this.#store.allowAlways(key);
        this.#onAlwaysAllow?.(toolId, principal);
        return;
      case 'deny':
        this.#setOf(this.#deniedThisTurn, sessionId).add(key);
        return;
      default: {
        const unreachable: never = decision;
        throw new Error(`unknown decision ${String(unreachable)}`);
      }
    }
  }

  /** Starts a new turn: denials of the previous turn are forgotten. */
  beginTurn(sessionId: string): void {
    this.#deniedThisTurn.delete(sessionId);
  }

  /** Forgets everything about a session except "always" grants. */
  endSession(sessionId: string): void {
    this.#deniedThisTurn.delete(sessionId);
    this.#store.forgetSession(sessionId);
  }

  /**
   * Revokes an "always" grant: the configured one on this manager and the `principal`'s answer
   * (default: the local user's).
   */
  revokeAlways(toolId: string, principal?: CallPrincipal): void {
    this.#configured.delete(toolId);
    this.#store.revokeAlways(grantKey(principal, toolId));
  }

  /** A grant the shared store knows of; a failing store counts as "none" (the user is asked). */
  async #fetch(
    request: ConfirmationRequest,
    target: GrantTarget | undefined,
  ): Promise<RememberedGrant | undefined> {
    if (!this.#store.fetch) return undefined;
    const principal = target?.principal;
    const group = target?.grantGroup;
    const alwaysKey = grantKey(principal, grantSubject(request.toolId, target));
    const sessionKey = group ? grantKey(principal, groupGrantSubject(group.id)) : alwaysKey;
    try {
      return await this.#store.fetch(request.sessionId, alwaysKey, sessionKey);
    } catch {
      return undefined;
    }
  }

  async #ask(
    request: ConfirmationRequest,
    signal: AbortSignal | undefined,
    callConfirm: ConfirmFunction | undefined,
  ): Promise<ConfirmationDecision | undefined> {
    const confirm = this.#confirm ?? callConfirm;
    if (!confirm) return undefined;
    try {
      return await confirm(request, signal);
    } catch {
      return 'deny';
    }
  }

  #apply(
    request: ConfirmationRequest,
    decision: ConfirmationDecision | undefined,
    target: GrantTarget | undefined,
  ): PermissionVerdict {
    if (decision === undefined) {
      return {
        allowed: false,
        reason: `${request.toolId} is ${request.risk} risk and needs the user's confirmation, but no one can confirm here.`,
        hint: this.#unconfirmableHint(request),
      };
    }
    this.record(request.sessionId, request.toolId, decision, target);
    if (decision === 'deny') {
      return {
        allowed: false,
        reason: `The user denied ${request.toolId}.`,
        hint: 'Change approach; do not call this tool again in this turn.',
      };
    }
    return { allowed: true, via: 'confirmed' };
  }

  /** Allowed for everyone: by the configuration, or by an operator at run time. */
  #isConfigured(toolId: string): boolean {
    return this.#configured.has(toolId) || this.#everyone?.has(toolId) === true;
  }

  #setOf(map: Map<string, Set<string>>, key: string): Set<string> {
    let set = map.get(key);
    if (!set) {
      set = new Set();
      map.set(key, set);
    }
    return set;
  }
}
