import { randomBytes } from 'node:crypto';
import { type FileHandle, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CHUNK_BYTES } from './workspace-descriptors.js';

/** Options for {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /** File mode for a new file. Default: the old file's mode, else 0o644. */
  mode?: number;
  /** Cancels the write; the old content stays and the temp file is removed. */
  signal?: AbortSignal;
  /** Called after each chunk reaches the temp file, with the bytes written so far. */
  onProgress?: (writtenBytes: number, totalBytes: number) => void;
}

/** The name of a fresh temp file beside the file `name`: `.<name>.<random>.tmp`. */
export function tempFileName(name: string): string {
  return `.${name}.${randomBytes(6).toString('hex')}.tmp`;
}

/**
 * Writes `bytes` to the start of `handle` in chunks, checking `signal` before each chunk and once
 * more after the last, reports progress after each, and flushes the file to disk.
 */
export async function writeChunksAndSync(
  handle: FileHandle,
  bytes: Uint8Array,
  options: Pick<WriteFileAtomicOptions, 'signal' | 'onProgress'>,
): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    options.signal?.throwIfAborted();
    const end = Math.min(written + CHUNK_BYTES, bytes.length);
    const { bytesWritten } = await handle.write(bytes, written, end - written, written);
    written += bytesWritten;
    options.onProgress?.(written, bytes.length);
  }
  options.signal?.throwIfAborted();
  await handle.sync();
}

/**
 * Writes a file atomically: the data goes to a temp file in the same folder, is flushed to disk,
 * and then renamed over the target. A process killed mid-write leaves the old content intact
 * (and at most a stray `.<name>.<random>.tmp` file beside it).
 */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
  let mode = options.mode;
  if (mode === undefined) {
    mode = await stat(target).then(
      (stats) => stats.mode & 0o7777,
      () => 0o644,
    );
  }
  const temp = join(dirname(target), tempFileName(basename(target)));
  const handle = await open(temp, 'wx', mode);
  let renamed = false;
  try {
    await writeChunksAndSync(handle, bytes, options);
    await handle.close();
    await rename(temp, target);
    renamed = true;
  } finally {
    if (!renamed) {
      await handle.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
    }
  }
}
