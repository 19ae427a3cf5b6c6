import type { ToolTraceSpan } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { ShortcutSuggester } from './shortcut-suggester.js';

let counter = 0;
function span(toolId: string, outcome = 'ok', attempt = 1): ToolTraceSpan {
  counter += 1;
  return {
    callId: `c${counter}`,
    toolId,
    attempt,
    startedAt: 0,
    durationMs: 1,
    outcome,
    argsDigest: { length: 2, printable: 2, fields: {} },
  };
}

describe('ShortcutSuggester', () => {
  it('suggests adjacent successful pairs seen at least 3 times', () => {
    const spans = [
      span('read_file'),
      span('text_transform'),
      span('read_file'),
      span('text_transform'),
      span('list_files'),
      span('read_file'),
      span('text_transform'),
      span('read_file'),
      span('write_file'),
    ];
    expect(new ShortcutSuggester().suggest(spans)).toEqual([
      { tools: ['read_file', 'text_transform'], count: 3 },
    ]);
  });

  it('does not suggest a pair seen only twice', () => {
    const spans = [span('a_tool'), span('b_tool'), span('a_tool'), span('b_tool')];
    expect(new ShortcutSuggester().suggest(spans)).toEqual([]);
  });

  it('failures and refusals break adjacency', () => {
    const spans = [
      span('read_file'),
      span('text_transform', 'TIMEOUT'),
      span('read_file'),
      span('text_transform', 'RATE_LIMITED', 0),
      span('read_file'),
      span('text_transform', 'EXECUTION_FAILED'),
    ];
    expect(new ShortcutSuggester().suggest(spans)).toEqual([]);
  });

  it('ignores orchestration tools and shortcuts themselves', () => {
    const spans = Array.from({ length: 4 }, () => [
      span('tool_batch_run'),
      span('shortcut.x'),
    ]).flat();
    expect(new ShortcutSuggester().suggest(spans)).toEqual([]);
  });
});
