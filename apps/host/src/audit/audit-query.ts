// Reading the audit log back: which lines match a principal, a tool and a time range.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { AuditEntry } from './audit-entry.js';
import { listDayFiles, utcDay } from './audit-files.js';

/** Which audit lines to read. */
export interface AuditQuery {
  /** Only this principal id. */
  readonly principal?: string;
  /** Only this tool id. */
  readonly tool?: string;
  /** Only calls at or after this time (ms since the epoch). */
  readonly since?: number;
  /** Only calls at or before this time (ms since the epoch). */
  readonly until?: number;
}

const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * A time given as ISO 8601 (`2026-03-10`, `2026-03-10T12:00:00Z`) or as a span before `now`
 * (`30m`, `1h`, `2d`, `1w`), in ms since the epoch; undefined when it is neither.
 */
export function parseAuditTime(text: string, now: number): number | undefined {
  const relative = /^(\d{1,6})([smhdw])$/.exec(text.trim());
  if (relative) return now - Number(relative[1]) * (UNIT_MS[relative[2] as string] ?? 0);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : time;
}

/** Whether a parsed line is a call's entry (not a notice such as `cap-reached`). */
function isEntry(value: unknown): value is AuditEntry {
  const entry = value as Partial<AuditEntry> | null;
  return (
    typeof entry?.time === 'string' &&
    typeof entry.tool === 'string' &&
    typeof entry.principal?.id === 'string'
  );
}

/**
 * The entries of the audit directory that match `query`, oldest first; only the day files the
 * time range touches are read, a line at a time, and lines that are not entries are skipped.
 */
export async function* readAuditEntries(
  directory: string,
  query: AuditQuery,
): AsyncGenerator<AuditEntry> {
  const firstDay = query.since !== undefined ? utcDay(query.since) : undefined;
  const lastDay = query.until !== undefined ? utcDay(query.until) : undefined;
  for (const file of await listDayFiles(directory)) {
    if ((firstDay && file.day < firstDay) || (lastDay && file.day > lastDay)) continue;
    const lines = createInterface({ input: createReadStream(file.path), crlfDelay: Infinity });
    for await (const line of lines) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      if (!isEntry(value) || !matches(value, query)) continue;
      yield value;
    }
  }
}

function matches(entry: AuditEntry, query: AuditQuery): boolean {
  if (query.principal !== undefined && entry.principal.id !== query.principal) return false;
  if (query.tool !== undefined && entry.tool !== query.tool) return false;
  const time = Date.parse(entry.time);
  if (query.since !== undefined && time < query.since) return false;
  if (query.until !== undefined && time > query.until) return false;
  return true;
}
