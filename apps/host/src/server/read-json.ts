import type { IncomingMessage } from 'node:http';

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Reads a JSON request body of at most 4 MiB; a bad or oversized body is a value, not a throw. */
export async function readJson(
  request: IncomingMessage,
): Promise<{ ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return { ok: false, status: 413, message: 'Body too large.' };
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { ok: false, status: 400, message: 'The body is not valid JSON.' };
  }
}
