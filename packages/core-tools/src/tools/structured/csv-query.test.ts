import type { ToolResult } from '@toolsys/core-tool-registry';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createCsvQueryTools } from './csv-query.js';

const registry = new ToolRegistry();
registry.registerAll(createCsvQueryTools(), { owner: 'test' });
const executor = createToolExecutor({ registry });

function call(args: Record<string, unknown>): Promise<ToolResult> {
  return executor.execute('csv_query', args);
}

const people = [
  'name,city,age',
  'Ann,"Paris, FR",34',
  'Bob,Berlin,9',
  '"Cy ""the kid""",Oslo,27',
  'Dee,Berlin,',
  '',
].join('\n');

describe('csv_query', () => {
  it('detects the header, filters, sorts numerically and selects columns', async () => {
    const result = await call({
      csv: people,
      select: ['name', 'age'],
      filter: [{ column: 'age', op: 'gt', value: 5 }],
      sort: [{ column: 'age', direction: 'desc' }],
    });
    expect(result).toEqual({
      ok: true,
      content: '3 of 4 rows match; showing 3.\nname,age\nAnn,34\n"Cy ""the kid""",27\nBob,9',
      data: {
        columns: ['name', 'age'],
        hasHeader: true,
        totalRows: 4,
        matchedRows: 3,
        rows: [
          { name: 'Ann', age: '34' },
          { name: 'Cy "the kid"', age: '27' },
          { name: 'Bob', age: '9' },
        ],
      },
    });
  });

  it('keeps quoted delimiters inside a field', async () => {
    const result = await call({
      csv: people,
      filter: [{ column: 'city', op: 'contains', value: ',' }],
    });
    expect(result).toMatchObject({
      ok: true,
      data: { rows: [{ name: 'Ann', city: 'Paris, FR' }] },
    });
  });

  it('combines filters with AND and supports empty, eq and matches', async () => {
    const result = await call({
      csv: people,
      filter: [
        { column: 'city', op: 'eq', value: 'Berlin' },
        { column: 'age', op: 'empty' },
      ],
    });
    expect(result).toMatchObject({ ok: true, data: { matchedRows: 1, rows: [{ name: 'Dee' }] } });
    const regex = await call({
      csv: people,
      filter: [{ column: 'name', op: 'matches', value: '^[AB]' }],
    });
    expect(regex).toMatchObject({ ok: true, data: { matchedRows: 2 } });
  });

  it('sorts empty cells last and applies offset and limit', async () => {
    const result = await call({
      csv: people,
      sort: [{ column: 'age' }],
      offset: 1,
      limit: 2,
      select: ['name'],
    });
    expect(result).toMatchObject({
      ok: true,
      data: { matchedRows: 4, rows: [{ name: 'Cy "the kid"' }, { name: 'Ann' }] },
    });
    const last = await call({ csv: people, sort: [{ column: 'age' }], select: ['name'] });
    expect(last.ok && (last.data as { rows: Array<{ name: string }> }).rows.at(-1)?.name).toBe(
      'Dee',
    );
  });

  it('names columns column1… when there is no header and reads other delimiters', async () => {
    const result = await call({
      csv: '1;2\n3;4\n',
      delimiter: ';',
      filter: [{ column: 'column2', op: 'ge', value: 4 }],
    });
    expect(result).toMatchObject({
      ok: true,
      data: {
        hasHeader: false,
        columns: ['column1', 'column2'],
        rows: [{ column1: '3', column2: '4' }],
      },
    });
  });

  it('honours header=no for a first row that looks like a header', async () => {
    const result = await call({ csv: 'alpha,beta\ngamma,delta\n', header: 'no' });
    expect(result).toMatchObject({ ok: true, data: { hasHeader: false, totalRows: 2 } });
  });

  it('rejects an unknown column naming the filter field and listing the columns', async () => {
    const result = await call({ csv: people, filter: [{ column: 'town', op: 'eq', value: 'x' }] });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_ARGUMENT',
        field: 'filter.0.column',
        message: 'filter.0.column: no column named "town"; the columns are "name", "city", "age"',
      },
    });
  });

  it('requires a value for comparison operators', async () => {
    const result = await call({ csv: people, filter: [{ column: 'age', op: 'lt' }] });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'filter.0.value' },
    });
  });

  it('rejects an unknown operator through the schema', async () => {
    const result = await call({ csv: people, filter: [{ column: 'age', op: 'like', value: 1 }] });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'filter.0.op' },
    });
  });

  it('ends filtering that exceeds the time limit with TIMEOUT', async () => {
    const limited = new ToolRegistry();
    limited.registerAll(createCsvQueryTools({ matchTimeLimitMs: 1 }), { owner: 'test' });
    const result = await createToolExecutor({ registry: limited }).execute('csv_query', {
      csv: `text\n${'a'.repeat(200_000)}b\n`,
      filter: [{ column: 'text', op: 'matches', value: '(.*a){100}$' }],
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'TIMEOUT', retryable: false } });
  });

  it('rejects CSV with an unclosed quote naming the csv field', async () => {
    const result = await call({ csv: 'a,b\n1,"open\n' });
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'csv' } });
  });
});
