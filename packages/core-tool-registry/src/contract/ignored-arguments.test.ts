import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestExecutor } from '../testing/test-executor.js';
import { TEST_TOOL_METADATA } from '../testing/test-tool.js';
import { defineTool } from './tool.js';
import { ToolErrorCode } from './tool-error.js';
import { failureResult, renderResult, successResult } from './tool-result.js';
import { ToolSchema } from './tool-schema.js';

/** A tool whose optional `filter` changes the answer, as csv_query's does. */
const rows = defineTool({
  id: 'rows_query',
  description: 'Returns the rows whose age is over `filter`.',
  inputSchema: ToolSchema.object({
    filter: z.number().optional(),
    limit: z.number().int().optional(),
  }),
  metadata: TEST_TOOL_METADATA,
  execute: ({ filter }) => {
    const ages = [20, 30, 40].filter((age) => filter === undefined || age > filter);
    return successResult(ages.join(','));
  },
});

const failing = defineTool({
  id: 'always_fails',
  description: 'Fails.',
  inputSchema: ToolSchema.object({ path: z.string() }),
  metadata: TEST_TOOL_METADATA,
  execute: () => failureResult(ToolErrorCode.NOT_FOUND, 'no such file'),
});

const imported = defineTool({
  id: 'remote_echo',
  description: 'Echoes every argument, as a remote tool may read any name.',
  inputSchema: ToolSchema.fromRendered({
    type: 'object',
    properties: { text: { type: 'string' } },
  }),
  metadata: TEST_TOOL_METADATA,
  execute: (args) => successResult(JSON.stringify(args)),
});

describe('ignored arguments', () => {
  const executor = createTestExecutor({ tools: [rows, failing, imported] });

  it('answers as before and names a misspelled field with the closest declared one', async () => {
    const result = await executor.execute('rows_query', { filtr: 25 });
    expect(renderResult(result)).toBe(
      '20,30,40\n\nNote: ignored argument "filtr" (did you mean "filter"?); rows_query takes: filter, limit.',
    );
  });

  it('lists the declared fields when no name is close, so the model can pick the right one', async () => {
    const result = await executor.execute('rows_query', { where: 'age > 26' });
    expect(result.ok && result.content).toBe(
      '20,30,40\n\nNote: ignored argument "where"; rows_query takes: filter, limit.',
    );
  });

  it('adds nothing when every argument is declared', async () => {
    expect(renderResult(await executor.execute('rows_query', { filter: 25 }))).toBe('30,40');
  });

  it('notes what was ignored on a refusal by the schema and on a failure of the tool', async () => {
    const missing = await executor.execute('always_fails', { file_path: 'a.txt' });
    expect(missing.ok).toBe(false);
    if (missing.ok) return;
    expect(missing.error.code).toBe(ToolErrorCode.INVALID_ARGUMENT);
    expect(missing.error.message).toContain(
      'Note: ignored argument "file_path" (did you mean "path"?); always_fails takes: path.',
    );
    expect(missing.error.details?.ignoredArguments).toEqual(['file_path']);
    const failed = await executor.execute('always_fails', { path: 'a.txt', recursive: true });
    expect(!failed.ok && failed.error.message).toBe(
      'no such file\nNote: ignored argument "recursive"; always_fails takes: path.',
    );
  });

  it('leaves imported schemas alone: their handler may read any name', async () => {
    const result = await executor.execute('remote_echo', { text: 'a', extra: 1 });
    expect(result.ok && result.content).toBe('{"text":"a","extra":1}');
  });

  it('keeps the note short for many or huge names from a hostile caller', async () => {
    const args: Record<string, unknown> = { filter: 25 };
    for (let index = 0; index < 300; index += 1) args[`x${index}${'y'.repeat(100)}`] = index;
    const result = await executor.execute('rows_query', args);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const note = result.content.split('\n\n')[1] ?? '';
    expect(note.length).toBeLessThan(700);
    expect(note).toContain('and 295 more; rows_query takes: filter, limit.');
    expect(note).toContain(`"x0${'y'.repeat(62)}…"`);
  });
});
