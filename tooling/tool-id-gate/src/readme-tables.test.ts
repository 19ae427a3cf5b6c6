import {
  defineTool,
  successResult,
  ToolHints,
  type ToolMetadataInput,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { renderToolTable, replaceTable, TABLE_END, TABLE_START } from './readme-tables.js';

const tool = (id: string, description: string, metadata: ToolMetadataInput) =>
  defineTool({
    id,
    description,
    inputSchema: ToolSchema.empty(),
    metadata,
    execute: () => successResult(''),
  });

describe('README tool tables', () => {
  it('renders id, category, risk, annotations and the first sentence, sorted by id', () => {
    const table = renderToolTable([
      {
        id: 'write_file',
        owner: 'x',
        tool: tool('write_file', 'Writes a file. Atomic.', {
          category: 'file',
          risk: 'MEDIUM',
          annotations: { ...ToolHints.destructive, idempotentHint: true },
        }),
      },
      {
        id: 'read_file',
        owner: 'x',
        tool: tool('read_file', 'Reads a file | fast.', {
          category: 'file',
          risk: 'LOW',
          annotations: ToolHints.readOnly,
        }),
      },
    ]);
    expect(table).toBe(
      [
        '2 tools.',
        '',
        '| id | category | risk | annotations | description |',
        '|---|---|---|---|---|',
        '| `read_file` | file | LOW | read-only, idempotent | Reads a file \\| fast. |',
        '| `write_file` | file | MEDIUM | destructive, idempotent | Writes a file. |',
      ].join('\n'),
    );
  });

  it('replaces only the text between the markers', () => {
    const readme = `# pkg\n\n## Tools\n${TABLE_START}\nold\n${TABLE_END}\n\nmore\n`;
    expect(replaceTable(readme, 'new')).toBe(
      `# pkg\n\n## Tools\n${TABLE_START}\nnew\n${TABLE_END}\n\nmore\n`,
    );
    expect(replaceTable('# no markers', 'x')).toBeUndefined();
  });
});
