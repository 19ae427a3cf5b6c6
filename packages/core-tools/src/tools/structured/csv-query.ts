import {
  type AnyToolDefinition,
  invalidArgument,
  successResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { compileLinearRegex, lazyModule } from '@toolsys/platform';
import type { RE2JS } from 're2js';
import { z } from 'zod';
import { DEFAULT_MATCH_TIME_LIMIT_MS, runWithTimeLimit } from './run-with-time-limit.js';
import { defineStructuredTool, queryLimitField } from './shared.js';

const csvParse = lazyModule<typeof import('csv-parse/sync')>('csv-parse/sync', import.meta.url);

const MAX_CSV_LENGTH = 5_000_000;
const MAX_RENDERED_ROWS = 50;
/** Characters of table text the model reads; wider tables are in the structured data only. */
const MAX_RENDERED_LENGTH = 100_000;

const FILTER_OPERATORS = [
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'contains',
  'starts_with',
  'ends_with',
  'matches',
  'empty',
  'not_empty',
] as const;

type FilterOperator = (typeof FILTER_OPERATORS)[number];

const csvQuerySchema = ToolSchema.object({
  csv: z.string().max(MAX_CSV_LENGTH).describe('CSV text.'),
  delimiter: z.enum([',', ';', '\t', '|']).default(',').describe('Field separator.'),
  header: z.enum(['auto', 'yes', 'no']).default('auto').describe('Header row; auto guesses.'),
  select: z.array(z.string().min(1)).max(200).optional().describe('Columns; default all.'),
  filter: z
    .array(
      z.object({
        column: z.string().min(1).describe('Column name.'),
        op: z
          .enum(FILTER_OPERATORS)
          .describe('Numeric when both are numbers, else text; matches: RE2 regex.'),
        value: z
          .union([z.string(), z.number()])
          .optional()
          .describe('Compared value (not for empty, not_empty).'),
      }),
    )
    .max(50)
    .default([])
    .describe('Conditions (AND).'),
  sort: z
    .array(
      z.object({
        column: z.string().min(1).describe('Column name.'),
        direction: z.enum(['asc', 'desc']).default('asc').describe('Direction.'),
      }),
    )
    .max(10)
    .default([])
    .describe('Sort keys in order.'),
  offset: z.number().int().min(0).default(0).describe('Rows to skip.'),
  limit: queryLimitField('rows'),
});

type CsvQueryArgs = typeof csvQuerySchema extends ToolSchema<infer T> ? T : never;

interface CompiledFilter {
  index: number;
  op: FilterOperator;
  value: string;
  number: number | undefined;
  regex: RE2JS | undefined;
}

function createCsvQueryTool(timeLimitMs: number): AnyToolDefinition {
  return defineStructuredTool({
    id: 'csv_query',
    description: 'Queries CSV text like SQL SELECT; returns rows and the match count.',
    inputSchema: csvQuerySchema,
    outputSchema: ToolSchema.object({
      columns: z.array(z.string()),
      hasHeader: z.boolean(),
      totalRows: z.number(),
      matchedRows: z.number(),
      rows: z.array(z.record(z.string(), z.string())),
    }),
    tags: ['csv', 'query'],
    execute(args) {
      const records = parseCsv(args);
      const first = records[0] ?? [];
      const hasHeader = args.header === 'yes' || (args.header === 'auto' && looksLikeHeader(first));
      const width = records.reduce((max, record) => Math.max(max, record.length), 0);
      const columns = nameColumns(first, width, hasHeader);
      const body = hasHeader ? records.slice(1) : records;
      // One map from name to position: a lookup per selected column, not a scan (150k columns).
      const positions = new Map<string, number>();
      for (let i = 0; i < columns.length; i++) positions.set(columns[i] as string, i);
      const columnIndex = (name: string, field: string): number => {
        const index = positions.get(name) ?? -1;
        if (index === -1) {
          throw invalidArgument(
            field,
            `no column named ${JSON.stringify(name)}; ${listColumns(columns)}`,
          );
        }
        return index;
      };
      const filters = args.filter.map((filter, i) =>
        compileFilter(filter, columnIndex(filter.column, `filter.${i}.column`), i),
      );
      const sortKeys = args.sort.map((key, i) => ({
        index: columnIndex(key.column, `sort.${i}.column`),
        sign: key.direction === 'desc' ? -1 : 1,
      }));
      const selected = (args.select ?? columns).map((name, i) => ({
        name,
        index: columnIndex(name, `select.${i}`),
      }));
      const matched = runWithTimeLimit(
        () => {
          const kept = body.filter((record) => filters.every((filter) => test(filter, record)));
          if (sortKeys.length > 0) {
            kept.sort((a, b) => {
              for (const key of sortKeys) {
                const order = compareCells(a[key.index] ?? '', b[key.index] ?? '');
                if (order !== 0) return order * key.sign;
              }
              return 0;
            });
          }
          return kept;
        },
        timeLimitMs,
        'csv_query',
        'Use fewer or simpler filters (a shorter matches pattern) and sort keys, or query a smaller CSV, then retry.',
      );
      const rows = matched.slice(args.offset, args.offset + args.limit).map((record) => {
        const row: Record<string, string> = {};
        for (const { name, index } of selected) row[name] = record[index] ?? '';
        return row;
      });
      const outputColumns = selected.map(({ name }) => name);
      const data = {
        columns: outputColumns,
        hasHeader,
        totalRows: body.length,
        matchedRows: matched.length,
        rows,
      };
      return successResult(renderRows(outputColumns, rows, matched.length, body.length, args), {
        data,
      });
    },
  });
}

function parseCsv(args: CsvQueryArgs): string[][] {
  try {
    return csvParse().parse(args.csv, {
      delimiter: args.delimiter,
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }) as string[][];
  } catch (error) {
    throw invalidArgument(
      'csv',
      `cannot parse the CSV: ${(error as Error).message}`,
      'Check quoting (a quote inside a quoted field is written "") and the delimiter, then retry.',
    );
  }
}

function isNumeric(text: string): boolean {
  return text.trim() !== '' && Number.isFinite(Number(text));
}

function looksLikeHeader(first: string[]): boolean {
  const cells = first.map((cell) => cell.trim());
  if (cells.length === 0 || cells.some((cell) => cell === '' || isNumeric(cell))) return false;
  return new Set(cells).size === cells.length;
}

const MAX_LISTED_COLUMNS = 50;

/** The columns named in an error: all of them when few, else the first ones and a count. */
function listColumns(columns: string[]): string {
  const listed = columns.slice(0, MAX_LISTED_COLUMNS).map((c) => JSON.stringify(c));
  const rest = columns.length - listed.length;
  return rest > 0
    ? `the columns are ${listed.join(', ')} and ${rest} more`
    : `the columns are ${listed.join(', ')}`;
}

/**
 * Column names: the header cells (blank ones and repeats made unique) or column1, column2, …
 * Linear in the columns: each base name remembers the next suffix to try, so 20,000 repeats of one
 * name do not rescan the suffixes already taken.
 */
function nameColumns(first: string[], width: number, hasHeader: boolean): string[] {
  const names: string[] = [];
  const seen = new Set<string>();
  const nextSuffix = new Map<string, number>();
  for (let i = 0; i < width; i++) {
    const base = hasHeader ? (first[i] ?? '').trim() || `column${i + 1}` : `column${i + 1}`;
    let name = base;
    if (seen.has(name)) {
      let suffix = nextSuffix.get(base) ?? 2;
      do name = `${base}_${suffix++}`;
      while (seen.has(name));
      nextSuffix.set(base, suffix);
    }
    seen.add(name);
    names.push(name);
  }
  return names;
}

function compileFilter(
  filter: CsvQueryArgs['filter'][number],
  index: number,
  position: number,
): CompiledFilter {
  const needsValue = filter.op !== 'empty' && filter.op !== 'not_empty';
  if (needsValue && filter.value === undefined) {
    throw invalidArgument(`filter.${position}.value`, `required for the operator ${filter.op}`);
  }
  const value = filter.value === undefined ? '' : String(filter.value);
  return {
    index,
    op: filter.op,
    value,
    number: isNumeric(value) ? Number(value) : undefined,
    regex:
      filter.op === 'matches'
        ? compileLinearRegex(value, {}, `filter.${position}.value`)
        : undefined,
  };
}

function test(filter: CompiledFilter, record: string[]): boolean {
  const cell = record[filter.index] ?? '';
  switch (filter.op) {
    case 'empty':
      return cell.trim() === '';
    case 'not_empty':
      return cell.trim() !== '';
    case 'contains':
      return cell.includes(filter.value);
    case 'starts_with':
      return cell.startsWith(filter.value);
    case 'ends_with':
      return cell.endsWith(filter.value);
    case 'matches':
      return filter.regex?.test(cell) ?? false;
    case 'eq':
    case 'ne':
    case 'lt':
    case 'le':
    case 'gt':
    case 'ge': {
      const order =
        filter.number !== undefined && isNumeric(cell)
          ? Math.sign(Number(cell) - filter.number)
          : compareText(cell, filter.value);
      return matchesOrder(filter.op, order);
    }
    default: {
      const unreachable: never = filter.op;
      throw new Error(`unknown operator ${String(unreachable)}`);
    }
  }
}

function matchesOrder(op: 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge', order: number): boolean {
  switch (op) {
    case 'eq':
      return order === 0;
    case 'ne':
      return order !== 0;
    case 'lt':
      return order < 0;
    case 'le':
      return order <= 0;
    case 'gt':
      return order > 0;
    case 'ge':
      return order >= 0;
    default: {
      const unreachable: never = op;
      throw new Error(`unknown operator ${String(unreachable)}`);
    }
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareCells(a: string, b: string): number {
  const aEmpty = a.trim() === '';
  const bEmpty = b.trim() === '';
  if (aEmpty || bEmpty) return aEmpty === bEmpty ? 0 : aEmpty ? 1 : -1;
  const aNumeric = isNumeric(a);
  const bNumeric = isNumeric(b);
  if (aNumeric && bNumeric) return Math.sign(Number(a) - Number(b));
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return compareText(a, b);
}

function quoteCell(cell: string, delimiter: string): string {
  return cell.includes(delimiter) || /["\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}

/** A header line cut to the rendered length (a table with hundreds of thousands of columns). */
function cutLine(line: string): string {
  return line.length > MAX_RENDERED_LENGTH
    ? `${line.slice(0, MAX_RENDERED_LENGTH)}… (${line.length} characters in all)`
    : line;
}

function renderRows(
  columns: string[],
  rows: Record<string, string>[],
  matched: number,
  total: number,
  args: CsvQueryArgs,
): string {
  const summary = `${matched} of ${total} row${total === 1 ? '' : 's'} match; showing ${rows.length}${args.offset > 0 ? ` from offset ${args.offset}` : ''}.`;
  if (rows.length === 0) return summary;
  const header = columns.map((c) => quoteCell(c, args.delimiter)).join(args.delimiter);
  const lines = [cutLine(header)];
  let length = lines[0]?.length ?? 0;
  let shown = 0;
  for (const row of rows.slice(0, MAX_RENDERED_ROWS)) {
    const line = columns.map((c) => quoteCell(row[c] ?? '', args.delimiter)).join(args.delimiter);
    if (length + line.length > MAX_RENDERED_LENGTH) break;
    lines.push(line);
    length += line.length + 1;
    shown += 1;
  }
  if (rows.length > shown) {
    lines.push(`… ${rows.length - shown} more rows in the structured data.`);
  }
  return `${summary}\n${lines.join('\n')}`;
}

/** Options for {@link createCsvQueryTools}. */
export interface CsvQueryToolsOptions {
  /** Hard limit on filtering and sorting time of one query, in ms; the call ends with TIMEOUT. Default 5000. */
  matchTimeLimitMs?: number;
}

/** `csv_query`. */
export function createCsvQueryTools(options: CsvQueryToolsOptions = {}): AnyToolDefinition[] {
  return [createCsvQueryTool(options.matchTimeLimitMs ?? DEFAULT_MATCH_TIME_LIMIT_MS)];
}
