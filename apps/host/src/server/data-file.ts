import { constants, existsSync } from 'node:fs';
import { type FileHandle, open, readlink, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';

/** Why a file of the data directory cannot be read. */
export type DataFileProblem = 'missing' | 'outside' | 'link' | 'not_file' | 'too_large';

/** A file of the data directory that cannot be read, with the reason as a closed code. */
export class DataFileError extends Error {
  /** Why it cannot be read. */
  readonly problem: DataFileProblem;

  constructor(problem: DataFileProblem, message: string) {
    super(message);
    this.name = 'DataFileError';
    this.problem = problem;
  }
}

/** A regular file of the data directory held open. The caller closes {@link handle}. */
export interface DataFile {
  /** The open descriptor; reads go to the file that was checked, whatever the path names now. */
  readonly handle: FileHandle;
  /** Its size in bytes when it was opened. */
  readonly size: number;
}

const PROC_FD = '/proc/self/fd';
const hasProcFd = process.platform === 'linux' && existsSync(PROC_FD);

function isInside(root: string, candidate: string): boolean {
  return candidate.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/**
 * Opens a regular file of the data directory for reading, race-free: the last component is
 * opened with O_NOFOLLOW (a link there is refused), and the open descriptor itself is checked to
 * lie inside the real data directory (through `/proc/self/fd` on Linux; elsewhere by comparing
 * it with the file its real path names), so a folder swapped for a link on the way is caught
 * too. Throws a {@link DataFileError}: missing, outside, link, not a regular file, or larger than
 * `maxBytes`.
 */
export async function openDataFile(
  dataDir: string,
  relativePath: string,
  options: { maxBytes: number },
): Promise<DataFile> {
  const root = await realpath(dataDir).catch(() => {
    throw new DataFileError('missing', 'the data directory does not exist');
  });
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
    handle = await open(
      join(root, relativePath),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') {
      throw new DataFileError('link', 'it is a symbolic link, which is never followed');
    }
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new DataFileError('missing', 'the file does not exist (any more)');
    }
    throw error;
  }
  try {
    const real = hasProcFd
      ? (await readlink(`${PROC_FD}/${handle.fd}`)).replace(/ \(deleted\)$/, '')
      : await realpath(join(root, relativePath));
    const stats = await handle.stat();
    if (!isInside(root, real) || (!hasProcFd && !(await isSameFile(real, stats)))) {
      throw new DataFileError('outside', 'it leads outside the data directory through a link');
    }
    if (!stats.isFile()) throw new DataFileError('not_file', 'it is not a regular file');
    if (stats.size > options.maxBytes) {
      throw new DataFileError(
        'too_large',
        `it holds ${stats.size} bytes, more than the ${options.maxBytes} that can be sent`,
      );
    }
    return { handle, size: stats.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function isSameFile(path: string, opened: { dev: number; ino: number }): Promise<boolean> {
  const named = await stat(path).catch(() => undefined);
  return named !== undefined && named.dev === opened.dev && named.ino === opened.ino;
}

/**
 * Reads an open data file to its end, at most `maxBytes` (a file that grew past it since it was
 * opened is refused, not cut).
 */
export async function readDataFile(file: DataFile, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.alloc(Math.min(1024 * 1024, maxBytes + 1 - total));
    const { bytesRead } = await file.handle.read(chunk, 0, chunk.length, total);
    if (bytesRead === 0) break;
    total += bytesRead;
    chunks.push(chunk.subarray(0, bytesRead));
    if (total > maxBytes) {
      throw new DataFileError(
        'too_large',
        `it grew past the ${maxBytes} bytes that can be sent while it was read`,
      );
    }
  }
  return Buffer.concat(chunks, total);
}
