import { Worker } from 'node:worker_threads';

/**
 * Bodies from this size on are parsed in a worker thread: parsing 60 MiB of JSON takes more than
 * a second, during which the thread every session shares would answer nobody.
 */
export const OFF_THREAD_PARSE_BYTES = 1024 * 1024;

const PARSER = `
const { parentPort, workerData } = require('node:worker_threads');
let outcome;
try {
  outcome = { ok: true, value: JSON.parse(Buffer.from(workerData).toString('utf8')) };
} catch {
  outcome = { ok: false };
}
parentPort.postMessage(outcome);
`;

/**
 * Parses JSON bytes in a short-lived worker thread; the bytes are moved there, not copied, and
 * the value comes back by structured clone (a long string crosses as one copy). Resolves with
 * `{ ok: false }` when the bytes are not JSON (or the worker fails).
 */
export function parseJsonOffThread(
  bytes: Buffer,
): Promise<{ ok: true; value: unknown } | { ok: false }> {
  // A buffer of its own, so that it can be transferred whole.
  const own =
    bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
      ? bytes.buffer
      : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return new Promise((resolve) => {
    let settled = false;
    const worker = new Worker(PARSER, {
      eval: true,
      workerData: own,
      transferList: [own as ArrayBuffer],
    });
    const settle = (outcome: { ok: true; value: unknown } | { ok: false }) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
      void worker.terminate();
    };
    worker.once('message', (outcome: { ok: true; value: unknown } | { ok: false }) =>
      settle(outcome),
    );
    worker.once('error', () => settle({ ok: false }));
    worker.once('exit', () => settle({ ok: false }));
  });
}
