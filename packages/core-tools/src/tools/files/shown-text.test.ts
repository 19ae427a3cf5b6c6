import { describe, expect, it } from 'vitest';
import { readShownEscapes, showFileLine } from './shown-text.js';

describe('showFileLine', () => {
  it('shows bidi, zero-width, tag and control characters as escapes, keeping tabs and a closing CR', () => {
    expect(showFileLine('a\u202eb\u200bc\u{e0041}\td\u001b[0m\r')).toBe(
      'a\\u202eb\\u200bc\\u{e0041}\td\\x1b[0m\r',
    );
  });

  it('shows a CR inside a line as an escape', () => {
    expect(showFileLine('progress 10%\rprogress 90%')).toBe('progress 10%\\rprogress 90%');
  });
});

describe('readShownEscapes', () => {
  it('reads back what showFileLine wrote', () => {
    const line = 'a\u202eb\u200bc\u{e0041}d\u001b[0m';
    expect(readShownEscapes(showFileLine(line))).toEqual({ text: line, decoded: 4 });
  });

  it('leaves escapes of visible characters and of \\n, \\r, \\t as written', () => {
    const text = '"\\u0041" "\\x41" "\\x0a" "\\x0d" "\\x09"';
    expect(readShownEscapes(text)).toEqual({ text, decoded: 0 });
  });
});
