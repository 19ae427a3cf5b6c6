import { describe, expect, it } from 'vitest';
import { unmatchedPatterns } from './tool-selection.js';

const known = {
  ids: ['read_file', 'write_file', 'browser_click', 'github_get_user'],
  categories: new Set(['file', 'browser', 'network']),
  packageKeys: new Set(['core', 'app-browser', 'app-github']),
};

describe('unmatchedPatterns', () => {
  it('names the include and exclude patterns that match no tool, served or off', () => {
    expect(
      unmatchedPatterns(
        {
          include: ['*_file', 'brwser_*'],
          exclude: ['github_*', 'category:netwrk', 'category:network', 'package:cs-memm'],
        },
        known,
      ),
    ).toEqual([
      'tools.include "brwser_*"',
      'tools.exclude "category:netwrk"',
      'tools.exclude "package:cs-memm"',
    ]);
  });

  it('has nothing to say without patterns', () => {
    expect(unmatchedPatterns(undefined, known)).toEqual([]);
    expect(unmatchedPatterns({ exclude: ['package:app-github'] }, known)).toEqual([]);
  });
});
