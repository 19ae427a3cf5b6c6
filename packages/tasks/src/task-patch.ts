import type { TaskPatch, TaskRecord } from '@toolsys/core-tool-registry';

/**
 * `record` with `patch` applied and `lastUpdatedAt` set to `now`: the one merge every store uses,
 * so that each store only has to make it atomic.
 */
export function applyTaskPatch(record: TaskRecord, patch: TaskPatch, now: number): TaskRecord {
  const { clear, ...fields } = patch;
  const next: Record<string, unknown> = { ...record, ...fields, lastUpdatedAt: now };
  for (const field of clear ?? []) delete next[field];
  for (const [key, value] of Object.entries(next)) if (value === undefined) delete next[key];
  return next as unknown as TaskRecord;
}

/** Whether a stored value has the shape of a {@link TaskRecord} (a store reads nothing else). */
export function isTaskRecord(value: unknown): value is TaskRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.taskId === 'string' &&
    typeof record.owner === 'string' &&
    typeof record.toolId === 'string' &&
    typeof record.status === 'string' &&
    typeof record.createdAt === 'number' &&
    typeof record.lastUpdatedAt === 'number' &&
    typeof record.ttlMs === 'number' &&
    typeof record.pollIntervalMs === 'number' &&
    typeof record.replicaId === 'string'
  );
}

/** Parses a stored record; undefined for anything that is not one. */
export function parseTaskRecord(text: string | null | undefined): TaskRecord | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isTaskRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A list cursor: the position after the last task of a page (creation time, then id). */
export function encodeTaskCursor(createdAt: number, taskId: string): string {
  return Buffer.from(JSON.stringify([createdAt, taskId])).toString('base64url');
}

/** The position a cursor names, or undefined when it was not made by {@link encodeTaskCursor}. */
export function decodeTaskCursor(
  cursor: string,
): { createdAt: number; taskId: string } | undefined {
  if (cursor.length > 200) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      Number.isSafeInteger(parsed[0]) &&
      typeof parsed[1] === 'string'
    ) {
      return { createdAt: parsed[0] as number, taskId: parsed[1] };
    }
  } catch {
    // Not one of ours.
  }
  return undefined;
}
