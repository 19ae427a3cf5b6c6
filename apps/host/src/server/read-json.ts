import type { IncomingMessage } from 'node:http';
import { type MAX_MESSAGE_BYTES, messageTooLargeText } from './message-limits.js';
import { OFF_THREAD_PARSE_BYTES, OffThreadJsonParser } from './parse-json-off-thread.js';

/**
 * Bytes of request bodies being read at once across a server, so that many large bodies in
 * parallel cannot exhaust memory although each is under the per-body limit.
 */
export class BodyBudget {
  /** The most body bytes held at once. */
  readonly maxBytes: number;
  #used = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Bytes held right now. */
  get used(): number {
    return this.#used;
  }

  /** Takes `bytes` from the budget; false (and nothing taken) when they do not fit. */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.maxBytes) return false;
    this.#used += bytes;
    return true;
  }

  /** Gives `bytes` back. */
  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}

/** The default body limit of {@link readJson}: 4 MiB, for small JSON APIs such as the dashboard's. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Options for {@link readJson}. */
export interface ReadJsonOptions {
  /**
   * The largest body read, in bytes. Default {@link DEFAULT_MAX_BODY_BYTES} (4 MiB); the MCP
   * endpoint passes {@link MAX_MESSAGE_BYTES} (64 MiB), the same limit as over stdio.
   */
  maxBytes?: number;
  /** A budget shared by the requests of one server; none by default. */
  budget?: BodyBudget;
}

/** Why a body was not read: HTTP status, a message, and how soon to retry when busy. */
export interface ReadJsonRefusal {
  readonly ok: false;
  readonly status: 400 | 413 | 503;
  readonly message: string;
  /** Seconds to wait before retrying (503 only). */
  readonly retryAfterSeconds?: number;
}

/**
 * Reads a JSON request body of at most `maxBytes`; a bad, oversized or unaffordable body is a
 * value, not a throw. The size is counted while reading (a body past the limit is refused with
 * 413 before more is buffered), and a body of {@link OFF_THREAD_PARSE_BYTES} or more is handed to
 * a worker thread as it arrives and parsed there, so a large request never holds up other
 * sessions.
 */
export function readJson(
  request: IncomingMessage,
  options: ReadJsonOptions = {},
): Promise<{ ok: true; value: unknown } | ReadJsonRefusal> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BODY_BYTES;
  const { budget } = options;
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    request.resume();
    return Promise.resolve({
      ok: false,
      status: 413,
      message: messageTooLargeText(declared, maxBytes),
    });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let taken = 0;
    // Past OFF_THREAD_PARSE_BYTES, the pieces go to a worker thread instead of `chunks`.
    let parser: OffThreadJsonParser | undefined;
    const finish = (outcome: { ok: true; value: unknown } | ReadJsonRefusal) => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      if (!outcome.ok) parser?.abort();
      budget?.release(taken);
      taken = 0;
      // The rest of a refused body is read and dropped (not buffered) so that the answer can
      // still be sent on this connection; leaving the loop early would destroy the socket.
      if (!outcome.ok) request.resume();
      resolve(outcome);
    };
    const onData = (piece: Buffer) => {
      size += piece.length;
      if (size > maxBytes) {
        finish({ ok: false, status: 413, message: messageTooLargeText(undefined, maxBytes) });
        return;
      }
      if (budget) {
        if (!budget.take(piece.length)) {
          finish({
            ok: false,
            status: 503,
            message: 'The server is reading too many large requests at once. Retry after a moment.',
            retryAfterSeconds: 1,
          });
          return;
        }
        taken += piece.length;
      }
      if (parser) return void parser.push(piece);
      chunks.push(piece);
      if (size >= OFF_THREAD_PARSE_BYTES) {
        parser = new OffThreadJsonParser();
        for (const chunk of chunks) parser.push(chunk);
        chunks.length = 0;
      }
    };
    const onEnd = () => {
      if (parser) {
        request.off('data', onData);
        request.off('error', onError);
        void parser
          .end()
          .then((parsed) =>
            finish(
              parsed.ok
                ? parsed
                : { ok: false, status: 400, message: 'Parse error: the body is not valid JSON.' },
            ),
          );
        return;
      }
      const bytes = Buffer.concat(chunks, size);
      chunks.length = 0;
      try {
        finish({ ok: true, value: JSON.parse(bytes.toString('utf8')) });
      } catch {
        finish({ ok: false, status: 400, message: 'Parse error: the body is not valid JSON.' });
      }
    };
    const onError = () => {
      finish({ ok: false, status: 400, message: 'The request body could not be read.' });
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
  });
}
