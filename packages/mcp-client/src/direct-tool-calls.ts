import {
  type CallToolResult,
  type JSONRPCMessage,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type Transport,
} from '@modelcontextprotocol/client';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import { type Deadlined, DeadlineWatch, SYSTEM_CLOCK } from '@toolsys/core-tool-registry';
import type { RemoteToolRef } from './call-result.js';
import { progressUpdate } from './progress-emitter.js';

/** Request ids of direct calls start with this; the SDK client numbers its own requests. */
const ID_PREFIX = 'toolsys-';

/** One direct `tools/call` (see {@link DirectToolCalls.call}). */
export interface DirectCallOptions {
  /**
   * Time limit in ms; on expiry the server is sent `notifications/cancelled`. `Infinity` sets
   * none; a negative or NaN limit has already passed.
   */
  readonly timeoutMs: number;
  /** Cancels the request; the server is sent `notifications/cancelled`. */
  readonly signal?: AbortSignal | undefined;
  /** Receives the server's progress notifications (a progress token is sent only with one). */
  readonly onProgress?:
    | ((progress: { progress: number; total?: number; message?: string }) => void)
    | undefined;
}

/** A direct call whose `input_required` result continues elsewhere (see {@link DirectCallEra}). */
export interface ResumedCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: DirectCallOptions['onProgress'];
  /** When the call was sent (`Date.now()`): the time limit covers every round. */
  readonly startedAt: number;
}

/** A `tools/call` result as a 2026-07-28 connection's codec decodes it. */
export type DecodedCall =
  | { readonly kind: 'complete'; readonly result: CallToolResult }
  | { readonly kind: 'invalid'; readonly error: unknown }
  | { readonly kind: 'input_required'; readonly pending: unknown };

/**
 * What the 2026-07-28 era adds to direct calls: the `_meta` envelope every request and
 * notification carries, the era's decoding and checking of results, and the multi-round-trip
 * path an `input_required` result continues on. Without one, calls speak 2025-11-25.
 */
export interface DirectCallEra {
  /** The `_meta` envelope of the connection (protocol version, client info, capabilities). */
  envelope(): Record<string, unknown>;
  /** Decodes and checks a result that is not of the plain complete shape. */
  decode(raw: unknown): DecodedCall;
  /** Answers an `input_required` result's requests and retries until the call completes. */
  resume(pending: unknown, call: ResumedCall): Promise<CallToolResult>;
}

/** What a failed direct call is, as the caller wants it reported. */
export type DirectCallFailure = (
  error: unknown,
  call: { readonly name: string; readonly timeoutMs: number; readonly signal?: AbortSignal },
) => unknown;

/**
 * `tools/call` sent straight on a connected transport, beside the SDK client that owns it.
 *
 * The SDK's `Client.callTool` goes through its generic request machinery: a timer per request, a
 * handful of closures, a promise per async layer and a full zod parse of every result. That costs
 * the same few microseconds as everything else a call through the pipeline does. This class keeps
 * the protocol's behaviour for the calls it takes: a timeout or an abort sends
 * `notifications/cancelled` with the request id and fails the call; progress notifications reach
 * `onProgress`; an error answer becomes a `ProtocolError`; a closed connection fails every pending
 * call with `ConnectionClosed`; every result is checked against the SDK's `CallToolResultSchema`
 * (the common shapes by a direct check that accepts only what that schema accepts unchanged).
 * Time limits share one timer.
 *
 * Its requests carry string ids with a prefix of their own, so they never meet the SDK's numbered
 * requests; every message that is not an answer or a progress notification for one of them goes
 * on to the SDK client unchanged. Calls that need the SDK's own handling (a tool with an
 * `outputSchema`, whose structured output the SDK validates) stay
 * with the SDK client: {@link McpClient} decides.
 *
 * On a 2026-07-28 connection (with a {@link DirectCallEra}) requests and cancellations carry the
 * era's `_meta` envelope, and results are decoded as that era wants: only a `complete` result of
 * the plain shape is taken at once; anything else goes through the era's codec (a wrong or
 * missing `resultType` fails as the SDK fails it), and an `input_required` result continues on
 * the SDK's multi-round-trip path.
 */
export class DirectToolCalls {
  readonly #transport: Transport;
  readonly #failure: DirectCallFailure;
  readonly #pending = new Map<string, PendingCall>();
  readonly #deadlines = new DeadlineWatch(SYSTEM_CLOCK);
  readonly #era: DirectCallEra | undefined;
  #next = 0;
  #closed = false;

  /**
   * Takes over the transport's message and close callbacks, passing on what is not its own to the
   * ones set before (the SDK client's). Create it once the client has connected.
   */
  constructor(transport: Transport, failure: DirectCallFailure, era?: DirectCallEra) {
    this.#transport = transport;
    this.#failure = failure;
    this.#era = era;
    const forward = transport.onmessage;
    transport.onmessage = (message, extra) => {
      let taken: boolean;
      try {
        taken = this.#take(message);
      } catch {
        // Nothing here throws by design; should it, the transport's reader must not die of it
        // (the call it concerned still ends at its time limit).
        taken = true;
      }
      if (!taken) forward?.(message, extra);
    };
    const closed = transport.onclose;
    transport.onclose = () => {
      this.#closeAll();
      closed?.();
    };
  }

  /** How many calls wait for their answer. */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Sends `tools/call` and settles with `convert` of the checked result, called in the same step
   * as the answer arrives. A failure (timeout, abort, error answer, invalid result, closed
   * connection) rejects with what the constructor's `failure` makes of it; what `convert` throws
   * is passed on unchanged.
   */
  call<T>(
    name: string,
    args: Record<string, unknown>,
    convert: (result: CallToolResult, ref: RemoteToolRef) => T,
    ref: RemoteToolRef,
    options: DirectCallOptions,
  ): Promise<T> {
    const { signal, onProgress } = options;
    return new Promise<T>((resolve, reject) => {
      const call = new DirectCall<T>(this, name, args, convert, ref, options, resolve, reject);
      if (this.#closed) {
        call.fail(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
        return;
      }
      if (signal?.aborted) {
        call.fail(signal.reason);
        return;
      }
      this.#next += 1;
      const id = `${ID_PREFIX}${this.#next}`;
      call.id = id;
      const era = this.#era;
      let params: Record<string, unknown>;
      if (era) {
        const meta = era.envelope();
        params = {
          name,
          arguments: args,
          _meta: onProgress ? { ...meta, progressToken: id } : meta,
        };
      } else {
        params = onProgress
          ? { name, arguments: args, _meta: { progressToken: id } }
          : { name, arguments: args };
      }
      this.#pending.set(id, call);
      this.#deadlines.watch(call);
      signal?.addEventListener('abort', call, { once: true });
      let sent: Promise<void>;
      try {
        sent = this.#transport.send({ jsonrpc: '2.0', id, method: 'tools/call', params });
      } catch (error) {
        if (this.#release(call)) call.fail(error);
        return;
      }
      sent.then(undefined, (error: unknown) => {
        if (this.#release(call)) call.fail(error);
      });
    });
  }

  /** Reports a failure the way the owner wants it (see the constructor). */
  report(error: unknown, call: PendingCall): unknown {
    return this.#failure(error, call);
  }

  /**
   * Gives up on a pending call (its time limit passed, or its signal fired): the server is told to
   * cancel it, and the call fails with `reason` (a timeout as the SDK reports one).
   */
  cancel(call: PendingCall, reason: unknown): void {
    if (!this.#release(call)) return;
    const params: Record<string, unknown> = { requestId: call.id, reason: String(reason) };
    if (this.#era) params._meta = this.#era.envelope();
    this.#transport
      .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params })
      .then(undefined, () => {
        // The connection is gone: there is nothing left to cancel.
      });
    call.fail(
      reason instanceof SdkError || reason instanceof ProtocolError
        ? reason
        : new SdkError(SdkErrorCode.RequestTimeout, String(reason)),
    );
  }

  /** Whether `message` is an answer or a progress notification of a direct call (and handles it). */
  #take(message: JSONRPCMessage): boolean {
    if ('method' in message) {
      if (message.method !== 'notifications/progress') return false;
      const params = message.params as
        | { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown }
        | undefined;
      const token = params?.progressToken;
      if (!params || typeof token !== 'string' || !token.startsWith(ID_PREFIX)) return false;
      this.#pending.get(token)?.progress(params);
      return true;
    }
    const id = (message as { id?: unknown }).id;
    if (typeof id !== 'string' || !id.startsWith(ID_PREFIX)) return false;
    const call = this.#pending.get(id);
    // An answer after the call timed out or was cancelled is dropped, as the protocol allows.
    if (!call || !this.#release(call)) return true;
    if ('error' in message) {
      const { code, message: text, data } = message.error;
      call.fail(ProtocolError.fromError(code, text, data));
      return true;
    }
    const result = (message as { result?: unknown }).result;
    if (this.#era) {
      this.#settleModern(call, result, this.#era);
      return true;
    }
    if (isPlainTextResult(result)) {
      call.succeed(result);
      return true;
    }
    const parsed = CallToolResultSchema.safeParse(result);
    if (parsed.success) call.succeed(parsed.data);
    else {
      // As the SDK client reports a result that fails its schema.
      call.fail(
        new SdkError(
          SdkErrorCode.InvalidResult,
          `Invalid result for tools/call: ${parsed.error.message}`,
        ),
      );
    }
    return true;
  }

  /** Settles a call with a 2026-07-28 result (see the class). */
  #settleModern(call: PendingCall, result: unknown, era: DirectCallEra): void {
    const plain = plainCompleteResult(result);
    if (plain) {
      call.succeed(plain);
      return;
    }
    const decoded = era.decode(result);
    if (decoded.kind === 'complete') call.succeed(decoded.result);
    else if (decoded.kind === 'invalid') call.fail(decoded.error);
    else call.resume(era.resume(decoded.pending, call));
  }

  /** Removes a call from every table; false when it had already left them. */
  #release(call: PendingCall): boolean {
    if (!this.#pending.delete(call.id)) return false;
    this.#deadlines.unwatch(call);
    call.detach();
    return true;
  }

  #closeAll(): void {
    this.#closed = true;
    const calls = [...this.#pending.values()];
    for (const call of calls) {
      if (this.#release(call))
        call.fail(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
    }
  }
}

/** A direct call as {@link DirectToolCalls} handles it, whatever its converted type. */
interface PendingCall extends Deadlined, ResumedCall {
  readonly id: string;
  detach(): void;
  progress(params: { progress?: unknown; total?: unknown; message?: unknown }): void;
  succeed(result: CallToolResult): void;
  fail(error: unknown): void;
  /** Settles with what the call's continuation (an input_required result's rounds) comes to. */
  resume(rest: Promise<CallToolResult>): void;
}

/** One pending direct call: its own deadline and abort listener, so a call makes no closures. */
class DirectCall<T> implements PendingCall {
  id = '';
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  readonly deadline: number;
  readonly startedAt: number;
  readonly #owner: DirectToolCalls;
  readonly #convert: (result: CallToolResult, ref: RemoteToolRef) => T;
  readonly #ref: RemoteToolRef;
  readonly onProgress: DirectCallOptions['onProgress'];
  readonly #resolve: (value: T) => void;
  readonly #reject: (error: unknown) => void;

  constructor(
    owner: DirectToolCalls,
    name: string,
    args: Record<string, unknown>,
    convert: (result: CallToolResult, ref: RemoteToolRef) => T,
    ref: RemoteToolRef,
    options: DirectCallOptions,
    resolve: (value: T) => void,
    reject: (error: unknown) => void,
  ) {
    this.#owner = owner;
    this.name = name;
    this.args = args;
    this.#convert = convert;
    this.#ref = ref;
    this.timeoutMs = options.timeoutMs;
    this.signal = options.signal;
    this.onProgress = options.onProgress;
    // No limit only when asked for (Infinity); anything not a duration expires at once.
    const limit = options.timeoutMs;
    this.deadline = SYSTEM_CLOCK.now() + (Number.isNaN(limit) || limit < 0 ? 0 : limit);
    this.startedAt = Date.now();
    this.#resolve = resolve;
    this.#reject = reject;
  }

  /** The time limit passed (called by the deadline watch). */
  expire(): void {
    this.#owner.cancel(
      this,
      new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: this.timeoutMs }),
    );
  }

  /** The caller's signal fired. */
  handleEvent(): void {
    this.#owner.cancel(this, this.signal?.reason);
  }

  /** Stops listening to the caller's signal. */
  detach(): void {
    this.signal?.removeEventListener('abort', this);
  }

  progress(params: { progress?: unknown; total?: unknown; message?: unknown }): void {
    const onProgress = this.onProgress;
    const update = onProgress && progressUpdate(params);
    if (!onProgress || !update) return;
    try {
      onProgress(update);
    } catch {
      // A failing progress sink must not fail the call.
    }
  }

  succeed(result: CallToolResult): void {
    let value: T;
    try {
      value = this.#convert(result, this.#ref);
    } catch (thrown) {
      this.#reject(thrown);
      return;
    }
    this.#resolve(value);
  }

  fail(error: unknown): void {
    this.#reject(this.#owner.report(error, this));
  }

  resume(rest: Promise<CallToolResult>): void {
    rest.then(
      (result) => this.succeed(result),
      (error: unknown) => this.fail(error),
    );
  }
}

const PLAIN_RESULT_KEYS = new Set(['content', 'isError', 'structuredContent']);
const PLAIN_COMPLETE_KEYS = new Set(['resultType', ...PLAIN_RESULT_KEYS]);

/**
 * A 2026-07-28 `tools/call` result of the plain shape ({@link isPlainTextResult}) with
 * `resultType: 'complete'`, without its `resultType` (as the era's codec lifts it); undefined for
 * anything else, which goes to the codec.
 */
export function plainCompleteResult(value: unknown): CallToolResult | undefined {
  if (!isPlainShape(value, PLAIN_COMPLETE_KEYS)) return undefined;
  const record = value as Record<string, unknown>;
  if (record.resultType !== 'complete') return undefined;
  const lifted: Record<string, unknown> = { content: record.content };
  if ('isError' in record) lifted.isError = record.isError;
  if ('structuredContent' in record) lifted.structuredContent = record.structuredContent;
  return lifted as CallToolResult;
}

/**
 * Whether `value` is a `CallToolResult` of the common shape that `CallToolResultSchema` accepts and
 * returns unchanged: only `content` (text blocks of `type` and `text` alone), an optional boolean
 * `isError` and an optional plain-object `structuredContent`. Anything else (other block types,
 * annotations, `_meta`, a missing `content`) is left to the schema.
 */
export function isPlainTextResult(value: unknown): value is CallToolResult {
  return isPlainShape(value, PLAIN_RESULT_KEYS);
}

/** {@link isPlainTextResult} with `keys` as the keys a result may have. */
function isPlainShape(value: unknown, keys: ReadonlySet<string>): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key) || !keys.has(key)) return false;
  }
  const content = record.content;
  if (!Array.isArray(content)) return false;
  for (let index = 0; index < content.length; index += 1) {
    const block = content[index] as Record<string, unknown> | null;
    if (typeof block !== 'object' || block === null || Array.isArray(block)) return false;
    if (block.type !== 'text' || typeof block.text !== 'string') return false;
    let keys = 0;
    for (const key in block) {
      if (!Object.hasOwn(block, key)) return false;
      keys += 1;
    }
    if (keys !== 2) return false;
  }
  if ('isError' in record && typeof record.isError !== 'boolean') return false;
  if ('structuredContent' in record) {
    const structured = record.structuredContent;
    if (typeof structured !== 'object' || structured === null || Array.isArray(structured)) {
      return false;
    }
    if (Object.getPrototypeOf(structured) !== Object.prototype) return false;
    if (Object.hasOwn(structured, '__proto__')) return false;
  }
  return true;
}
