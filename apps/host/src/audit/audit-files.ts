// Where audit lines live: one file per UTC day under `<dataDir>/audit`, and how old days go.
import { constants } from 'node:fs';
import { access, mkdir, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** The audit directory under a data directory. */
export const AUDIT_DIRECTORY = 'audit';

/** The name of a day file: `YYYY-MM-DD.jsonl`. */
const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.jsonl$/;

const DAY_MS = 86_400_000;

/** The audit directory of a data directory. */
export function auditDirectory(dataDir: string): string {
  return join(dataDir, AUDIT_DIRECTORY);
}

/** The UTC day of a time, `YYYY-MM-DD`. */
export function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/** The file name of a UTC day. */
export function dayFileName(day: string): string {
  return `${day}.jsonl`;
}

/** The day files of an audit directory, oldest first, with their days; none when it is absent. */
export async function listDayFiles(
  directory: string,
): Promise<{ readonly day: string; readonly path: string }[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return [];
  }
  return names
    .map((name) => DAY_FILE.exec(name)?.[1])
    .filter((day): day is string => day !== undefined)
    .sort()
    .map((day) => ({ day, path: join(directory, dayFileName(day)) }));
}

/**
 * Deletes the day files older than `retainDays` days before `now`'s day (today's file and the
 * `retainDays - 1` before it stay). Returns the days deleted; a file another replica deleted
 * first is no error.
 */
export async function deleteExpiredDays(
  directory: string,
  retainDays: number,
  now: number,
): Promise<string[]> {
  const oldestKept = utcDay(now - (retainDays - 1) * DAY_MS);
  const deleted: string[] = [];
  for (const file of await listDayFiles(directory)) {
    if (file.day >= oldestKept) continue;
    try {
      await unlink(file.path);
      deleted.push(file.day);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return deleted;
}

/**
 * Whether the audit log can be written: `writable`, or why not (the error code), for
 * `toolsys doctor`. Creates the directory, as the first write would.
 */
export async function checkAuditDirectory(directory: string): Promise<string> {
  try {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await access(directory, constants.W_OK);
    return 'writable';
  } catch (error) {
    return `cannot write (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); calls are not audited`;
  }
}
