import type { AuditEntry } from '../audit/audit-entry.js';
import { auditDirectory } from '../audit/audit-files.js';
import { type AuditQuery, parseAuditTime, readAuditEntries } from '../audit/audit-query.js';
import { commandInfo } from './catalog.js';
import { configuredDataDir, splitArgs } from './shared.js';
import { type CliCommand, type CliIo, UsageError } from './types.js';

/** Entries shown by default: the most recent 100 that match. */
const DEFAULT_LIMIT = 100;

/** `toolsys audit`: the audit log's lines that match, as a table or as JSON lines. */
export const auditCommand: CliCommand = {
  ...commandInfo('audit'),
  async run(args, io) {
    const { flags, values, positionals } = splitArgs(args, {
      booleans: ['json'],
      values: ['principal', 'tool', 'since', 'until', 'limit', 'config'],
    });
    if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}".`);
    const query = auditQueryOf(values, Date.now());
    const limitText = values.get('limit') ?? String(DEFAULT_LIMIT);
    const limit = Number(limitText);
    if (!Number.isInteger(limit) || limit < 1) {
      throw new UsageError(`--limit must be a positive integer, got "${limitText}".`);
    }
    const directory = auditDirectory(configuredDataDir(io, values.get('config')));
    // The last `limit` matches, read in one pass without holding the others.
    const kept: AuditEntry[] = [];
    let total = 0;
    for await (const entry of readAuditEntries(directory, query)) {
      total += 1;
      kept.push(entry);
      if (kept.length > limit) kept.shift();
    }
    if (flags.has('json')) {
      for (const entry of kept) io.stdout.write(`${JSON.stringify(entry)}\n`);
      return 0;
    }
    printTable(io, kept, total);
    return 0;
  },
};

/** The query the options name; a time that is neither ISO nor relative is a usage error. */
function auditQueryOf(values: Map<string, string>, now: number): AuditQuery {
  const time = (name: 'since' | 'until') => {
    const text = values.get(name);
    if (text === undefined) return {};
    const parsed = parseAuditTime(text, now);
    if (parsed === undefined) {
      throw new UsageError(
        `--${name} must be an ISO 8601 time (2026-03-10 or 2026-03-10T12:00:00Z) or a span before now (30m, 1h, 2d, 1w), got "${text}".`,
      );
    }
    return { [name]: parsed };
  };
  const query: AuditQuery = {
    ...(values.has('principal') ? { principal: values.get('principal') } : {}),
    ...(values.has('tool') ? { tool: values.get('tool') } : {}),
    ...time('since'),
    ...time('until'),
  };
  if (query.since !== undefined && query.until !== undefined && query.since > query.until) {
    throw new UsageError('--since is after --until: nothing can match.');
  }
  return query;
}

/** Control characters of a logged value, shown escaped so that a cell stays on its line. */
function cell(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function printTable(io: CliIo, entries: readonly AuditEntry[], total: number): void {
  if (entries.length === 0) {
    io.stdout.write('No audit lines match.\n');
    return;
  }
  const rows = entries.map((entry) => [
    entry.time.replace('T', ' ').slice(0, 19),
    `${cell(entry.principal.id)} (${cell(entry.principal.kind)})`,
    cell(entry.tool),
    entry.risk ?? '-',
    entry.deniedBy ? `${entry.decision} (${entry.deniedBy})` : entry.decision,
    cell(entry.outcome),
    `${entry.durationMs} ms`,
  ]);
  const header = ['time (UTC)', 'principal', 'tool', 'risk', 'decision', 'outcome', 'duration'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (row: readonly string[]) =>
    `${row
      .map((value, column) => value.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd()}\n`;
  io.stdout.write(line(header));
  for (const row of rows) io.stdout.write(line(row));
  if (total > entries.length) {
    io.stdout.write(`(${entries.length} most recent of ${total}; --limit shows more)\n`);
  }
}
