import { describe, expect, it } from 'vitest';
import { renderCatalog } from './catalog.js';
import { defineTool } from './tool.js';
import { ToolRegistry } from './tool-registry.js';
import { successResult } from './tool-result.js';
import { ToolSchema } from './tool-schema.js';

function tool(id: string, description: string) {
  return defineTool({
    id,
    description,
    inputSchema: ToolSchema.empty(),
    execute: () => successResult(''),
  });
}

describe('renderCatalog', () => {
  it('groups by category in a fixed order, compact and deterministic', () => {
    const registry = new ToolRegistry();
    registry.register(tool('write_file', 'Writes a file atomically. Overwrites.'));
    registry.register(tool('calculate', 'Evaluates math.'));
    registry.register(tool('read_file', 'Reads a file. Supports ranges.'));
    registry.register(tool('shell_execute', 'Runs a shell command.'));
    const text = renderCatalog(registry.list());
    expect(text).toBe(
      [
        'shell:',
        '- shell_execute [HIGH]: Runs a shell command.',
        '',
        'file:',
        '- read_file [read-only]: Reads a file.',
        '- write_file [MEDIUM]: Writes a file atomically.',
        '',
        'utility:',
        '- calculate [read-only]: Evaluates math.',
      ].join('\n'),
    );
    expect(renderCatalog([...registry.list()].reverse())).toBe(text);
  });
});
