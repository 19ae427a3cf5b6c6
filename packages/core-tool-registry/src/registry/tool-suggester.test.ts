import { describe, expect, it } from 'vitest';
import { ToolSuggester } from './tool-suggester.js';

const ids = [
  'calculate',
  'read_file',
  'write_file',
  'edit_file',
  'delete_file',
  'list_files',
  'glob_files',
  'search_files',
  'copy_move_file',
  'web_fetch',
  'terminal.run',
  'terminal.write',
];

describe('ToolSuggester', () => {
  const suggester = new ToolSuggester();

  it('suggests the closest id for a typo', () => {
    expect(suggester.suggest('calculat', ids)).toEqual(['calculate']);
  });

  it('names at most three ids even when many are close', () => {
    const suggestions = suggester.suggest('file', ids);
    expect(suggestions.length).toBeLessThanOrEqual(3);
    expect(suggestions.length).toBeGreaterThan(0);
  });

  it('never returns the whole list, even when asked for more', () => {
    expect(suggester.suggest('_file', ids, 50).length).toBeLessThanOrEqual(3);
  });

  it('orders by distance, then by id', () => {
    expect(suggester.suggest('red_file', ids)[0]).toBe('read_file');
    expect(suggester.suggest('terminal.rnu', ids)[0]).toBe('terminal.run');
  });

  it('suggests nothing for an id unlike any other', () => {
    expect(suggester.suggest('zzzzzzzzzzzz', ids)).toEqual([]);
    expect(suggester.suggest('', ids)).toEqual([]);
  });
});
