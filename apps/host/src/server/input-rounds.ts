import { createHash, randomUUID } from 'node:crypto';
import {
  type InputRequiredResult,
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
  type InputRequest as WireInputRequest,
} from '@modelcontextprotocol/server';
import type { DeploymentKey } from '../deployment-key.js';
import type { UsedStateIds } from './used-state-ids.js';

/** The purpose a `requestState` is sealed for (its own subkey of the deployment key). */
export const REQUEST_STATE_PURPOSE = 'mcp.request-state';

/** How long a `requestState` may come back: as long as a person may take to answer. */
export const REQUEST_STATE_TTL_MS = 10 * 60_000;

/** Input requests one call may make across its rounds. */
export const MAX_INPUT_ROUNDS = 8;

/** The largest sealed state, in bytes of JSON: the answers ride in it. */
const MAX_STATE_BYTES = 256 * 1024;

/**
 * What a `requestState` holds, sealed (encrypted and authenticated) with the deployment key so
 * that any replica can open it and nobody else can read or forge it: which call it belongs to
 * (tool, digest of the arguments, owner), the answers so far in the order they were asked, and
 * the key under which the next answer comes back. Its id is used once.
 */
export interface RoundState {
  readonly id: string;
  readonly tool: string;
  readonly call: string;
  readonly owner: string;
  /** The answers so far, by the key each request was asked under. */
  readonly answers: Readonly<Record<string, unknown>>;
  /** The keys asked in the last round, whose answers the next request brings. */
  readonly asked: readonly string[];
}

/** Thrown to a tool whose input request goes back to the client: the call runs again with it. */
export class InputPendingError extends Error {
  constructor() {
    super('The client is asked for input; this call runs again with the answer.');
    this.name = 'InputPendingError';
  }
}

/**
 * The `requestState.verify` hook of a server: opens a state with the deployment key and claims
 * its id. A tampered, expired or replayed state throws, which the SDK answers with its -32602
 * "Invalid or expired requestState" error (the reason goes to `onerror`).
 */
export function requestStateVerifier(
  key: () => Promise<DeploymentKey>,
  used: UsedStateIds,
): (state: string) => Promise<RoundState> {
  return async (state) => {
    const opened = (await key()).open<RoundState>(REQUEST_STATE_PURPOSE, state);
    if (!opened.ok) throw new Error(`requestState ${opened.reason}`);
    const payload = opened.payload;
    if (!isRoundState(payload)) throw new Error('requestState malformed');
    if (!(await used.claim(payload.id, Math.max(1, opened.expiresAt - Date.now())))) {
      throw new Error('requestState replayed');
    }
    return payload;
  };
}

function isRoundState(value: unknown): value is RoundState {
  const state = value as Partial<RoundState> | null;
  return (
    typeof state === 'object' &&
    state !== null &&
    typeof state.id === 'string' &&
    typeof state.tool === 'string' &&
    typeof state.call === 'string' &&
    typeof state.owner === 'string' &&
    Array.isArray(state.asked) &&
    state.asked.every((key) => typeof key === 'string') &&
    typeof state.answers === 'object' &&
    state.answers !== null &&
    !Array.isArray(state.answers)
  );
}

/** A digest of a call's arguments: a state is good only for the call it was issued for. */
export function callDigest(tool: string, args: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([tool, args ?? null]))
    .digest('base64url');
}

/**
 * Asks the client for one input, named `key` in the `inputRequests` of the result (else
 * `input-<n>`, n counting the run's requests); resolves with its answer or throws
 * {@link InputPendingError}.
 */
export type Ask = (request: WireInputRequest, key?: string) => Promise<unknown>;

/** A key a tool may name its request by: short, and nothing that could collide with ours oddly. */
const INPUT_KEY = /^[A-Za-z0-9_.-]{1,64}$/;

/** Options of {@link runInRounds}. */
export interface RoundOptions {
  readonly ctx: ServerContext;
  readonly key: () => Promise<DeploymentKey>;
  readonly tool: string;
  readonly call: string;
  readonly owner: string;
}

/**
 * Runs one round of a 2026-07-28 multi-round-trip request. The request's verified state (if any)
 * must belong to this call and this owner; its answers plus the one the client just sent are
 * handed, in order, to the run's input requests. The first request without an answer stops the
 * run (its signal aborts) and the round answers `input_required` with that request and a fresh
 * sealed state; a run that asks nothing more completes with its own result.
 */
export async function runInRounds<T>(
  options: RoundOptions,
  run: (ask: Ask, signal: AbortSignal) => Promise<T>,
): Promise<{ readonly done: T } | { readonly inputRequired: InputRequiredResult }> {
  const { ctx } = options;
  const prior = ctx.mcpReq.requestState<RoundState>();
  if (prior !== undefined && typeof prior === 'object') {
    if (
      prior.tool !== options.tool ||
      prior.call !== options.call ||
      prior.owner !== options.owner
    ) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'Invalid requestState: it was issued for another call. Send the request again without requestState and inputResponses.',
        { reason: 'invalid_request_state' },
      );
    }
  }
  const answers: Record<string, unknown> = { ...(prior?.answers ?? {}) };
  for (const key of prior?.asked ?? []) {
    const sent = ctx.mcpReq.inputResponses?.[key];
    if (sent !== undefined) answers[key] = sent;
  }
  const controller = new AbortController();
  const stop = () => controller.abort(ctx.mcpReq.signal.reason);
  ctx.mcpReq.signal.addEventListener('abort', stop, { once: true });
  let asked = 0;
  // Requests made together (`Promise.all`) go back in one round: they are gathered until the
  // run's current turn of the event loop ends.
  const pending = new Map<string, WireInputRequest>();
  let announced = false;
  let announce: () => void = () => {};
  const needed = new Promise<void>((resolve) => {
    announce = resolve;
  });
  const ask: Ask = async (request, key) => {
    const index = asked;
    asked += 1;
    if (key !== undefined && !INPUT_KEY.test(key)) {
      throw new Error(
        `An input request's key must be 1 to 64 letters, digits, "_", "." or "-"; got ${JSON.stringify(key.slice(0, 80))}.`,
      );
    }
    const name = key ?? `input-${index}`;
    if (Object.hasOwn(answers, name)) return answers[name];
    if (index >= MAX_INPUT_ROUNDS) {
      throw new Error(
        `This call asked for input more than ${MAX_INPUT_ROUNDS} times; it is refused. Ask for less at once.`,
      );
    }
    if (!announced) {
      if (pending.size === 0) {
        setImmediate(() => {
          announced = true;
          announce();
          controller.abort(new InputPendingError());
        });
      }
      pending.set(name, request);
    }
    throw new InputPendingError();
  };
  try {
    const outcome = await Promise.race([
      run(ask, controller.signal).then(
        (value) => ({ value }),
        (error: unknown) => {
          // The run gave up because its input is pending: the round answers input_required.
          if (pending.size > 0) return undefined;
          throw error;
        },
      ),
      needed.then(() => undefined),
    ]);
    if (pending.size === 0 && outcome !== undefined) return { done: outcome.value };
  } finally {
    ctx.mcpReq.signal.removeEventListener('abort', stop);
  }
  if (!announced) {
    await needed;
  }
  const state: RoundState = {
    id: randomUUID(),
    tool: options.tool,
    call: options.call,
    owner: options.owner,
    answers,
    asked: [...pending.keys()],
  };
  if (JSON.stringify(state).length > MAX_STATE_BYTES) {
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `The answers to this call's input requests exceed ${MAX_STATE_BYTES} bytes; it cannot go on. Answer with less, or call it again.`,
    );
  }
  const requestState = (await options.key()).seal(
    REQUEST_STATE_PURPOSE,
    state,
    REQUEST_STATE_TTL_MS,
  );
  return {
    inputRequired: inputRequired({ inputRequests: Object.fromEntries(pending), requestState }),
  };
}
