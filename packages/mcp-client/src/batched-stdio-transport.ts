import { type JSONRPCMessage, parseJSONRPCMessage } from '@modelcontextprotocol/client';
import {
  StdioClientTransport,
  type StdioServerParameters,
} from '@modelcontextprotocol/client/stdio';

/** Messages read in one turn of the event loop before the transport yields. */
const MESSAGES_PER_TURN = 256;
/** Time spent reading in one turn before the transport yields, in ms. */
const MS_PER_TURN = 4;
/** The largest line kept, in bytes (the SDK's own default). */
const MAX_BUFFER_BYTES = 10 * 1024 * 1024;
const NEWLINE = 0x0a;

/** The SDK transport's internals this class takes over (pinned SDK version, checked by tests). */
interface SdkInternals {
  _readBuffer: LineReader;
  _process?: { stdout?: { pause(): void; resume(): void } | null };
  processReadBuffer(): void;
}

/**
 * The MCP SDK's stdio client transport, reading the server's output in bounded turns. The SDK
 * transport parses every line with its zod schema (≈ 90 µs a message) and handles everything a
 * chunk holds in one go, so a server flooding 100 000 notifications held the event loop for
 * seconds at a time and every other session waited. Here:
 *
 * - the common message shapes (a notification without `_meta`, a result answer) are accepted by a
 *   direct check that takes only what the SDK schema returns unchanged; anything else goes
 *   through the schema as before (so a malformed line still fails the same way);
 * - an answer that follows a notification is handed on in the next turn, after the SDK has
 *   handled the notification (it does so on a later microtask, answers at once);
 * - at most {@link MESSAGES_PER_TURN} messages or {@link MS_PER_TURN} ms are handled per turn;
 *   then the server's stdout is paused and reading resumes on the next turn, so timers (a call's
 *   time limit) and other sessions run in between, and a server that writes faster than it is
 *   read is held back by the pipe instead of filling the host's memory.
 *
 * Everything else (process start, environment, stderr, close) is the SDK's.
 */
export class BatchedStdioClientTransport extends StdioClientTransport {
  #scheduled = false;

  constructor(server: StdioServerParameters) {
    super(server);
    const internals = this as unknown as SdkInternals;
    internals._readBuffer = new LineReader(server.maxBufferSize ?? MAX_BUFFER_BYTES);
    internals.processReadBuffer = () => this.#drain();
  }

  #drain(): void {
    if (this.#scheduled) return;
    const internals = this as unknown as SdkInternals;
    const reader = internals._readBuffer;
    const started = performance.now();
    let notified = false;
    for (let handled = 0; ; handled += 1) {
      if (handled >= MESSAGES_PER_TURN || performance.now() - started > MS_PER_TURN) {
        // Yield: the rest is read on a later turn, and the pipe holds the server back meanwhile.
        if (reader.hasLine()) this.#resumeLater(undefined);
        return;
      }
      let message: JSONRPCMessage | null;
      try {
        message = reader.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      const isNotification = 'method' in message && !('id' in message);
      if (notified && !('method' in message)) {
        // The SDK handles a notification on a later microtask but an answer at once: an answer
        // read right after a progress notification would overtake it (and the progress would be
        // dropped as for an unknown request). It is handed on once the notification has been.
        this.#resumeLater(message);
        return;
      }
      notified = isNotification;
      this.onmessage?.(message);
    }
  }

  /** Reads on in a later turn, first handing on `held` (an answer already read), if any. */
  #resumeLater(held: JSONRPCMessage | undefined): void {
    const internals = this as unknown as SdkInternals;
    this.#scheduled = true;
    const stdout = internals._process?.stdout;
    stdout?.pause();
    setImmediate(() => {
      this.#scheduled = false;
      stdout?.resume();
      if (held) this.onmessage?.(held);
      this.#drain();
    });
  }
}

/** Splits the server's output into lines and parses each as a JSON-RPC message. */
class LineReader {
  readonly #maxBytes: number;
  #buffer: Buffer | undefined;
  /** The rest of a line too long to keep is being skipped (its tail is not a message). */
  #skipping = false;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  append(input: Buffer): void {
    let chunk = input;
    if (this.#skipping) {
      const end = chunk.indexOf(NEWLINE);
      if (end === -1) return;
      this.#skipping = false;
      chunk = chunk.subarray(end + 1);
    }
    const size = (this.#buffer?.length ?? 0) + chunk.length;
    if (size > this.#maxBytes) {
      // The line is dropped whole: what follows its end (if this chunk holds it) is kept.
      const end = chunk.indexOf(NEWLINE);
      this.#buffer = end === -1 || end + 1 === chunk.length ? undefined : chunk.subarray(end + 1);
      this.#skipping = end === -1;
      throw new Error(`ReadBuffer exceeded maximum size of ${this.#maxBytes} bytes`);
    }
    this.#buffer = this.#buffer ? Buffer.concat([this.#buffer, chunk]) : chunk;
  }

  hasLine(): boolean {
    return this.#buffer !== undefined && this.#buffer.indexOf(NEWLINE) !== -1;
  }

  /** The next message, null when no whole line is buffered; throws on a line that is not one. */
  readMessage(): JSONRPCMessage | null {
    const buffer = this.#buffer;
    if (!buffer) return null;
    const index = buffer.indexOf(NEWLINE);
    if (index === -1) return null;
    const line = buffer.toString('utf8', 0, index).replace(/\r$/, '');
    this.#buffer = index + 1 === buffer.length ? undefined : buffer.subarray(index + 1);
    return parseMessage(line);
  }

  clear(): void {
    this.#buffer = undefined;
  }
}

/**
 * A line as a JSON-RPC message: the common shapes by a direct check that accepts only what
 * the SDK's JSON-RPC message schema returns unchanged, anything else through that schema (which throws).
 */
export function parseMessage(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  if (isPlainNotification(value) || isPlainResultAnswer(value)) return value as JSONRPCMessage;
  return parseJSONRPCMessage(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

/** `{jsonrpc, method, params?}` with plain-object params that carry no `_meta`. */
function isPlainNotification(value: unknown): boolean {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0' || typeof value.method !== 'string') {
    return false;
  }
  for (const key of Object.keys(value)) {
    if (key !== 'jsonrpc' && key !== 'method' && key !== 'params') return false;
  }
  const params = value.params;
  if (params === undefined) return true;
  return isPlainObject(params) && !Object.hasOwn(params, '_meta');
}

/** `{jsonrpc, id, result}` with a string or integer id and a plain-object result without `_meta`. */
function isPlainResultAnswer(value: unknown): boolean {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0') return false;
  const keys = Object.keys(value);
  if (keys.length !== 3 || !('id' in value) || !('result' in value)) return false;
  const id = value.id;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return false;
  return isPlainObject(value.result) && !Object.hasOwn(value.result, '_meta');
}
