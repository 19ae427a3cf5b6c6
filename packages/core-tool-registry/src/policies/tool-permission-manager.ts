import type {
  ConfirmationDecision,
  ConfirmationRequest,
  ConfirmFunction,
} from '../contract/tool.js';
import type { ToolRisk } from '../contract/tool-metadata.js';

/** What the policy says for a risk level before anyone is asked. */
export type RiskPolicy = 'allow' | 'ask' | 'deny';

/** Where a (session, tool) pair stands. */
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
 */
export interface PermissionDecisionStore {
  /** Whether `toolId` is allowed always, as far as this process knows. */
  isAllowedAlways(toolId: string): boolean;
  /** Whether `toolId` is allowed for `sessionId`, as far as this process knows. */
  isAllowedForSession(sessionId: string, toolId: string): boolean;
  /** Remembers an "always" grant. */
  allowAlways(toolId: string): void;
  /** Remembers an "allow for the session" grant. */
  allowForSession(sessionId: string, toolId: string): void;
  /** Revokes an "always" grant. */
  revokeAlways(toolId: string): void;
  /** Forgets the session's grants. */
  forgetSession(sessionId: string): void;
  /**
   * Looks a grant up where other processes record theirs, when this process knows none; must
   * settle (to undefined when the shared store cannot answer) within a bounded time.
   */
  fetch?(sessionId: string, toolId: string): Promise<RememberedGrant | undefined>;
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
  /** Where the users' answers ("for the session", "always") are remembered. Default: in memory. */
  store?: PermissionDecisionStore;
  /** Called when the user answers "always", to persist the choice. */
  onAlwaysAllow?: (toolId: string) => void;
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
 * A per-session permission state machine. `ask` → (allow once: stays `ask`) | (allow for the
 * session: `allowed_session`) | (always: `allowed_always`, every session) | (deny: `denied_turn`,
 * refused without asking again until the session's next turn).
 */
export class ToolPermissionManager {
  readonly selfGatedToolIds: ReadonlySet<string>;
  readonly #confirm: ConfirmFunction | undefined;
  readonly #unconfirmableHint: (request: ConfirmationRequest) => string;
  readonly #policy: Record<ToolRisk, RiskPolicy>;
  readonly #store: PermissionDecisionStore;
  /** The configured allow-list: local to this manager, never in the store. */
  readonly #configured: Set<string>;
  readonly #deniedThisTurn = new Map<string, Set<string>>();
  readonly #onAlwaysAllow: ((toolId: string) => void) | undefined;

  constructor(options: ToolPermissionManagerOptions = {}) {
    this.#confirm = options.confirm;
    this.#unconfirmableHint = options.unconfirmableHint ?? defaultUnconfirmableHint;
    this.#policy = { ...DEFAULT_POLICY, ...options.policy };
    this.selfGatedToolIds = new Set(options.selfGatedToolIds ?? []);
    this.#store = options.store ?? new InMemoryPermissionStore();
    this.#configured = new Set(options.alwaysAllowed ?? []);
    this.#onAlwaysAllow = options.onAlwaysAllow;
  }

  /** Where this tool stands for this session. */
  state(sessionId: string, toolId: string): PermissionState {
    if (this.#configured.has(toolId) || this.#store.isAllowedAlways(toolId)) {
      return 'allowed_always';
    }
    if (this.#deniedThisTurn.get(sessionId)?.has(toolId)) return 'denied_turn';
    if (this.#store.isAllowedForSession(sessionId, toolId)) return 'allowed_session';
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
  ): Promise<PermissionVerdict> {
    const settled = this.decide(request.toolId, request.risk, request.sessionId);
    if (settled) return settled;
    const remembered = await this.#fetch(request.sessionId, request.toolId);
    if (remembered === 'allowed_always') return VIA_ALWAYS;
    if (remembered === 'allowed_session') return VIA_SESSION;
    const decision = await this.#ask(request, signal, callConfirm);
    return this.#apply(request, decision);
  }

  /**
   * The verdict that policy or remembered state gives without asking anyone, or undefined when
   * the user must be asked (then call {@link authorize}). Synchronous and allocation-free on the
   * allow paths, so callers build a prompt only when one is needed.
   */
  decide(
    toolId: string,
    risk: ToolRisk,
    sessionId: string,
    gatesItself = false,
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
      return this.#configured.has(toolId) ? VIA_CONFIGURED : VIA_SELF_GATED;
    }
    const state = this.state(sessionId, toolId);
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

  /** Records a decision taken elsewhere (e.g. an MCP elicitation answered out of band). */
  record(sessionId: string, toolId: string, decision: ConfirmationDecision): void {
    switch (decision) {
      case 'allow_once':
        return;
      case 'allow_session':
        this.#store.allowForSession(sessionId, toolId);
        return;
      case 'allow_always':
        this.#store.allowAlways(toolId);
        this.#onAlwaysAllow?.(toolId);
        return;
      case 'deny':
        this.#setOf(this.#deniedThisTurn, sessionId).add(toolId);
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

  /** Revokes an "always" grant, the configured one on this manager included. */
  revokeAlways(toolId: string): void {
    this.#configured.delete(toolId);
    this.#store.revokeAlways(toolId);
  }

  /** A grant the shared store knows of; a failing store counts as "none" (the user is asked). */
  async #fetch(sessionId: string, toolId: string): Promise<RememberedGrant | undefined> {
    if (!this.#store.fetch) return undefined;
    try {
      return await this.#store.fetch(sessionId, toolId);
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
  ): PermissionVerdict {
    if (decision === undefined) {
      return {
        allowed: false,
        reason: `${request.toolId} is ${request.risk} risk and needs the user's confirmation, but no one can confirm here.`,
        hint: this.#unconfirmableHint(request),
      };
    }
    this.record(request.sessionId, request.toolId, decision);
    if (decision === 'deny') {
      return {
        allowed: false,
        reason: `The user denied ${request.toolId}.`,
        hint: 'Change approach; do not call this tool again in this turn.',
      };
    }
    return { allowed: true, via: 'confirmed' };
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
