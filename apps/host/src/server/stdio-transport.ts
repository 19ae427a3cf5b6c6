import type { Readable, Writable } from 'node:stream';
import {
  type JSONRPCMessage,
  ProtocolErrorCode,
  parseJSONRPCMessage,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/server';
import {
  ID_PROBE_BYTES,
  MAX_MESSAGE_BYTES,
  MESSAGE_TOO_LARGE_CODE,
  messageTooLargeText,
  recoverRequestId,
} from './message-limits.js';

/** Options for {@link BoundedStdioServerTransport}. */
export interface BoundedStdioOptions {
  /** The largest message (one line, in bytes) that is read. Default {@link MAX_MESSAGE_BYTES}. */
  maxMessageBytes?: number;
  /**
   * Bytes of outgoing messages kept while the client does not read. Past it, notifications
   * (progress, log messages) are dropped; answers and requests are still kept, since dropping one
   * would leave a caller waiting. Default {@link MAX_QUEUED_BYTES} (8 MiB).
   */
  maxQueuedBytes?: number;
}

/** Default bytes of outgoing messages kept while the client does not read: 8 MiB. */
export const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/** A message waiting for the pipe to drain, and who waits for it. */
interface Queued {
  readonly line: string;
  readonly bytes: number;
  readonly done: () => void;
}

/** The part of a message over the limit that is kept: its size and both ends. */
interface Oversized {
  bytes: number;
  head: Buffer;
  tail: Buffer;
}

const NEWLINE = 0x0a;

/**
 * A stdio server transport (newline-delimited JSON-RPC) that answers instead of going deaf. A
 * message over the size limit is skipped as it streams in (never buffered) and answered with a
 * JSON-RPC error naming the limit, carrying the request id when either end of the message shows
 * it; a line that is not JSON gets a parse error and one that is not JSON-RPC an Invalid Request
 * error. Whatever arrives, the next message is read as usual. (The SDK's transport closes itself
 * on an oversized message and drops unparsable lines without an answer.)
 */
export class BoundedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #limit: number;
  #pieces: Buffer[] = [];
  #size = 0;
  #oversized: Oversized | undefined;
  #started = false;
  readonly #maxQueuedBytes: number;
  /** Messages written while the pipe was full, oldest first; flushed on one `drain` listener. */
  #queue: Queued[] = [];
  #queueHead = 0;
  #queuedBytes = 0;
  #waitingForDrain = false;
  #dropped = 0;

  constructor(stdin: Readable, stdout: Writable, options: BoundedStdioOptions = {}) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#limit = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.#maxQueuedBytes = options.maxQueuedBytes ?? MAX_QUEUED_BYTES;
  }

  /** Notifications dropped so far because the client did not read (see `maxQueuedBytes`). */
  get droppedNotifications(): number {
    return this.#dropped;
  }

  /** Bytes of outgoing messages waiting for the client to read. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** Starts reading stdin. */
  async start(): Promise<void> {
    if (this.#started) throw new Error('BoundedStdioServerTransport already started.');
    this.#started = true;
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('error', this.#onError);
  }

  /**
   * Writes one message as a line. While the client does not read, messages wait in one queue
   * (in order, one `drain` listener for all of them) and the promise settles when the message is
   * handed to the pipe. A notification that would take the queue past `maxQueuedBytes` is dropped
   * (its promise settles at once); answers and requests always wait their turn.
   */
  send(message: JSONRPCMessage): Promise<void> {
    const line = `${JSON.stringify(message)}\n`;
    if (!this.#waitingForDrain) {
      if (!this.#stdout.write(line)) this.#awaitDrain();
      return Promise.resolve();
    }
    const bytes = Buffer.byteLength(line);
    const isNotification = !('id' in message) && 'method' in message;
    if (isNotification && this.#queuedBytes + bytes > this.#maxQueuedBytes) {
      this.#dropped += 1;
      return Promise.resolve();
    }
    return new Promise((done) => {
      this.#queue.push({ line, bytes, done });
      this.#queuedBytes += bytes;
    });
  }

  #awaitDrain(): void {
    this.#waitingForDrain = true;
    this.#stdout.once('drain', this.#onDrain);
  }

  /** Hands queued messages to the pipe until it is full again or the queue is empty. */
  readonly #onDrain = (): void => {
    this.#waitingForDrain = false;
    const queue = this.#queue;
    while (this.#queueHead < queue.length) {
      const next = queue[this.#queueHead] as Queued;
      this.#queueHead += 1;
      this.#queuedBytes -= next.bytes;
      const more = this.#stdout.write(next.line);
      next.done();
      if (!more) {
        this.#compact();
        this.#awaitDrain();
        return;
      }
    }
    this.#queue = [];
    this.#queueHead = 0;
  };

  /** Drops the handed-on head of the queue once it is large, so the array does not keep it. */
  #compact(): void {
    if (this.#queueHead > 1024 && this.#queueHead * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#queueHead);
      this.#queueHead = 0;
    }
  }

  /** Stops reading and reports the close. */
  async close(): Promise<void> {
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('error', this.#onError);
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause();
    this.#pieces = [];
    this.#size = 0;
    this.#oversized = undefined;
    this.#stdout.off('drain', this.#onDrain);
    this.#waitingForDrain = false;
    // Nobody will read what is still queued: its senders are released, not left waiting.
    const queued = this.#queue.slice(this.#queueHead);
    this.#queue = [];
    this.#queueHead = 0;
    this.#queuedBytes = 0;
    for (const entry of queued) entry.done();
    this.onclose?.();
  }

  readonly #onError = (error: Error) => {
    this.onerror?.(error);
  };

  readonly #onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let offset = 0;
    while (offset < data.length) {
      const newline = data.indexOf(NEWLINE, offset);
      const end = newline === -1 ? data.length : newline;
      this.#take(data.subarray(offset, end));
      if (newline === -1) break;
      this.#endLine();
      offset = newline + 1;
    }
  };

  /** Adds a piece of the current line, switching to skipping once the line is over the limit. */
  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    const oversized = this.#oversized;
    if (oversized) {
      oversized.bytes += piece.length;
      oversized.tail = lastBytes(oversized.tail, piece);
      return;
    }
    if (this.#size + piece.length <= this.#limit) {
      this.#pieces.push(piece);
      this.#size += piece.length;
      return;
    }
    const bytes = this.#size + piece.length;
    const previous = lastBytes(Buffer.alloc(0), this.#pieces.at(-1) ?? Buffer.alloc(0));
    this.#oversized = {
      bytes,
      head: Buffer.concat([...this.#pieces, piece], Math.min(ID_PROBE_BYTES, bytes)),
      tail: lastBytes(previous, piece),
    };
    this.#pieces = [];
    this.#size = 0;
  }

  #endLine(): void {
    const oversized = this.#oversized;
    if (oversized) {
      this.#oversized = undefined;
      const id = recoverRequestId(oversized.head.toString('utf8'), oversized.tail.toString('utf8'));
      this.#answerError(
        id,
        MESSAGE_TOO_LARGE_CODE,
        messageTooLargeText(oversized.bytes, this.#limit),
      );
      this.onerror?.(new Error(`Skipped a message of ${oversized.bytes} bytes (over the limit).`));
      return;
    }
    const line = Buffer.concat(this.#pieces, this.#size).toString('utf8').replace(/\r$/, '');
    this.#pieces = [];
    this.#size = 0;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.#answerError(
        undefined,
        ProtocolErrorCode.ParseError,
        `Parse error: the line is not valid JSON (${(error as Error).message}). Send one JSON-RPC message per line.`,
      );
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      this.#answerError(
        requestIdOf(value),
        ProtocolErrorCode.InvalidRequest,
        'Invalid Request: the line is JSON but not a JSON-RPC 2.0 message (it needs "jsonrpc":"2.0" and a method, or a result or error with an id).',
      );
      return;
    }
    this.onmessage?.(message);
  }

  #answerError(id: RequestId | undefined, code: number, message: string): void {
    // JSON-RPC 2.0: the id is null when it cannot be determined.
    const answer = { jsonrpc: '2.0', id: id ?? null, error: { code, message } };
    void this.send(answer as JSONRPCMessage);
  }
}

/** The last {@link ID_PROBE_BYTES} bytes of `previous` followed by `piece`, copied. */
function lastBytes(previous: Buffer, piece: Buffer): Buffer {
  if (piece.length >= ID_PROBE_BYTES) return Buffer.from(piece.subarray(-ID_PROBE_BYTES));
  return Buffer.concat([previous, piece]).subarray(-ID_PROBE_BYTES);
}

/** The id of a parsed value that looks like a request, if it has a usable one. */
function requestIdOf(value: unknown): RequestId | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const id = (value as { id?: unknown }).id;
  if (typeof id === 'string') return id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return id;
  return undefined;
}
