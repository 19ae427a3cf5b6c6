import { describe, expect, it } from 'vitest';
import { ToolHints } from '../contract/tool-metadata.js';
import { successResult } from '../contract/tool-result.js';
import { FIXTURE_METADATA } from '../testing/fixture-metadata.js';
import { defineTestTool } from '../testing/test-tool.js';
import { firstSentence, pruneToolPointers, renderCatalog, splitSentences } from './catalog.js';
import { ToolRegistry } from './tool-registry.js';

function tool(id: string, description: string) {
  return defineTestTool({
    id,
    description,
    metadata: FIXTURE_METADATA[id] ?? {
      category: 'utility',
      risk: 'LOW',
      annotations: ToolHints.mutating,
    },
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

describe('splitSentences and firstSentence', () => {
  it('never ends a sentence at e.g., i.e. or vs.', () => {
    const text =
      'Pauses for a number of seconds, e.g. to let a page settle, i.e. wait. Ends early when cancelled.';
    expect(firstSentence(text)).toBe(
      'Pauses for a number of seconds, e.g. to let a page settle, i.e. wait.',
    );
    expect(splitSentences(text)).toHaveLength(2);
  });

  it('ends at "etc." only before a capital letter', () => {
    expect(splitSentences('Reads csv, json etc. and more. Then stops.')).toEqual([
      'Reads csv, json etc. and more.',
      'Then stops.',
    ]);
    expect(splitSentences('Reads csv, json etc. Then stops.')).toEqual([
      'Reads csv, json etc.',
      'Then stops.',
    ]);
  });

  it('keeps decimals and versions inside a sentence', () => {
    expect(firstSentence('Costs 0.5 s on Node 20.19 here. Second.')).toBe(
      'Costs 0.5 s on Node 20.19 here.',
    );
  });

  it('cuts only an over-long sentence, at a word boundary', () => {
    expect(firstSentence('One two three four five six.', 15)).toBe('One two three…');
    expect(firstSentence('Short one. Another.', 15)).toBe('Short one.');
  });
});

describe('pruneToolPointers', () => {
  const has = (ids: string[]) => (id: string) => ids.includes(id);

  it('drops a sentence recommending a tool the deployment lacks', () => {
    const text =
      "Pauses for a number of seconds. Ends early when cancelled. Prefer a tool's own wait option (terminal.wait) when it has one.";
    expect(pruneToolPointers(text, has(['wait']))).toBe(
      'Pauses for a number of seconds. Ends early when cancelled.',
    );
    expect(pruneToolPointers(text, has(['wait', 'terminal.wait']))).toBe(text);
  });

  it('keeps sentences that mention file names, or tokens the caller accepts (argument names)', () => {
    const text = 'Reads toolsys.config.json. Use max_bytes to limit it.';
    expect(pruneToolPointers(text, has(['max_bytes']))).toBe(text);
    expect(pruneToolPointers(text, has([]))).toBe('Reads toolsys.config.json.');
  });
});
