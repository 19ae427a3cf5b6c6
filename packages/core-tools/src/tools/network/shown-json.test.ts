import { describe, expect, it } from 'vitest';
import { MAX_SHOWN_JSON_DEPTH, shownJson } from './shown-json.js';

describe('shownJson', () => {
  it('shows hidden characters of strings and keys as escapes, keeping line breaks', () => {
    expect(
      shownJson({
        'na\u200bme': 'ok\u202egnp.exe',
        list: ['a\u{e0041}b', 1, true, null],
        text: 'line one\nline two\x1b[2J',
      }),
    ).toEqual({
      'na\\u200bme': 'ok\\u202egnp.exe',
      list: ['a\\u{e0041}b', 1, true, null],
      text: 'line one\nline two\\x1b[2J',
    });
  });

  it('replaces parts nested too deep with a note instead of overflowing the stack', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    let shown = shownJson(deep);
    for (let depth = 0; depth < MAX_SHOWN_JSON_DEPTH; depth++) shown = (shown as unknown[])[0];
    expect(shown).toBe(`[nested deeper than ${MAX_SHOWN_JSON_DEPTH} levels: omitted]`);
  });
});
