import { describe, expect, it } from 'vitest';
import { parseCommandLine, quoteShellWord } from './shell-words.js';

describe('parseCommandLine', () => {
  it('splits quoted words, sequences and redirections', () => {
    expect(
      parseCommandLine(
        `echo && screencap -p 2>/dev/null; am broadcast -a clipper.set -e text 'it'\\''s "x"'`,
      ),
    ).toEqual([
      { argv: ['echo'], join: ';' },
      { argv: ['screencap', '-p'], join: '&&', stderrTo: '/dev/null' },
      { argv: ['am', 'broadcast', '-a', 'clipper.set', '-e', 'text', `it's "x"`], join: ';' },
    ]);
  });

  it('merges stderr with 2>&1 and keeps || joins', () => {
    expect(parseCommandLine('pidof x 2>&1 || echo none > /sdcard/out')).toEqual([
      { argv: ['pidof', 'x'], join: ';', stderrTo: '&1' },
      { argv: ['echo', 'none'], join: '||', stdoutTo: '/sdcard/out' },
    ]);
  });

  it('refuses an unterminated quote like sh', () => {
    expect(() => parseCommandLine("echo 'open")).toThrow(/unmatched/);
  });

  it('round-trips any word through quoteShellWord', () => {
    for (const word of ['plain', "it's", 'a b', '$HOME', '你好 😀', '']) {
      expect(parseCommandLine(`echo ${quoteShellWord(word)}`)[0]?.argv[1] ?? '').toBe(word);
    }
  });
});
