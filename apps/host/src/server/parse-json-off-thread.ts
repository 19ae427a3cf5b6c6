import { Worker } from 'node:worker_threads';

/**
 * Bodies from this size on are parsed in a worker thread: parsing 60 MiB of JSON takes more than
 * a second, during which the thread every session shares would answer nobody.
 */
export const OFF_THREAD_PARSE_BYTES = 1024 * 1024;

/** What the worker answers: the value, or that the bytes are not JSON. */
type ParseOutcome = { ok: true; value: unknown } | { ok: false };

// The worker gathers the body's pieces as they arrive and, at `null`, joins and parses them: the
// thread every session shares neither joins 60 MiB of pieces nor parses them.
const PARSER = `
const { parentPort } = require('node:worker_threads');
const pieces = [];
parentPort.on('message', (piece) => {
  if (piece !== null) return void pieces.push(piece);
  let outcome;
  try {
    outcome = { ok: true, value: JSON.parse(Buffer.concat(pieces).toString('utf8')) };
  } catch {
    outcome = { ok: false };
  }
  pieces.length = 0;
  parentPort.postMessage(outcome);
});
`;

/**
 * A JSON body parsed in a short-lived worker thread while it is read: each piece is handed over
 * as it arrives ({@link push}), {@link end} resolves with the value (it comes back by structured
 * clone: a long string crosses as one copy), and {@link abort} stops the worker. Resolves with
 * `{ ok: false }` when the bytes are not JSON or the worker fails.
 */
export class OffThreadJsonParser {
  readonly #worker: Worker;
  readonly #outcome: Promise<ParseOutcome>;
  #settle: (outcome: ParseOutcome) => void = () => {};

  constructor() {
    this.#worker = new Worker(PARSER, { eval: true });
    this.#outcome = new Promise((resolve) => {
      let settled = false;
      this.#settle = (outcome) => {
        if (settled) return;
        settled = true;
        resolve(outcome);
        void this.#worker.terminate();
      };
    });
    this.#worker.once('message', (outcome: ParseOutcome) => this.#settle(outcome));
    this.#worker.once('error', () => this.#settle({ ok: false }));
    this.#worker.once('exit', () => this.#settle({ ok: false }));
  }

  /** Hands a piece of the body to the worker (copied: the piece may share a pooled buffer). */
  push(piece: Uint8Array): void {
    this.#worker.postMessage(piece);
  }

  /** Says the body is complete; resolves with what it parsed to. */
  end(): Promise<ParseOutcome> {
    this.#worker.postMessage(null);
    return this.#outcome;
  }

  /** Stops the worker (the body was refused); {@link end} then resolves `{ ok: false }`. */
  abort(): void {
    this.#settle({ ok: false });
  }
}
