import {
  defineTool,
  ToolHints,
  ToolRegistry,
  type ToolRisk,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { renderToolList } from './list.js';

const SENTENCE =
  'Reads a text file in the workspace, optionally a line range, and says which lines it showed and how to continue when the file is longer than the cap.';

function registryOf(...tools: Array<[id: string, risk: ToolRisk, description: string]>) {
  const registry = new ToolRegistry();
  for (const [id, risk, description] of tools) {
    registry.register(
      defineTool({
        id,
        description,
        inputSchema: ToolSchema.object({}),
        metadata: { category: 'file', risk, annotations: ToolHints.readOnly },
        execute: () => 'ok',
      }),
    );
  }
  return registry.groupByCategory();
}

/** The description lines of each row: its first line from `column` on, then its continuations. */
function descriptionRows(table: string, column: number): string[][] {
  const rows: string[][] = [];
  for (const line of table.split('\n')) {
    if (line.startsWith('  ') && line[2] !== ' ') rows.push([line.slice(column)]);
    else if (line.startsWith(' '.repeat(column))) rows.at(-1)?.push(line.slice(column));
  }
  return rows;
}

describe('toolsys list: the table', () => {
  it('wraps every description at the terminal width, each line filled as far as the first', () => {
    const groups = registryOf(
      ['read_file', 'LOW', SENTENCE],
      ['terminal.workspaces', 'MEDIUM', `Lists the sessions. ${SENTENCE}`],
    );
    const table = renderToolList(groups, 80);
    const column = 'terminal.workspaces'.length + 12;
    for (const line of table.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    const rows = descriptionRows(table, column);
    expect(rows.map((row) => row.join(' '))).toEqual([SENTENCE, 'Lists the sessions.']);
    for (const row of rows) {
      // Greedy and even: no line could have taken the next line's first word.
      for (const [index, line] of row.slice(0, -1).entries()) {
        const next = (row[index + 1] as string).split(' ')[0] as string;
        expect(column + line.length + 1 + next.length, line).toBeGreaterThan(80);
        expect(line.startsWith(' ')).toBe(false);
      }
    }
    expect(table.endsWith('\n2 tools\n')).toBe(true);
  });

  it('puts the description under the id when the terminal is too narrow for it beside', () => {
    const table = renderToolList(registryOf(['terminal.workspaces', 'MEDIUM', SENTENCE]), 40);
    for (const line of table.split('\n')) expect(line.length, line).toBeLessThanOrEqual(40);
    const lines = table.split('\n');
    expect(lines[1]).toBe('  terminal.workspaces  MEDIUM');
    expect(
      lines
        .slice(2)
        .filter((line) => line.startsWith('      '))
        .map((line) => line.slice(6))
        .join(' '),
    ).toBe(SENTENCE);
  });
});
