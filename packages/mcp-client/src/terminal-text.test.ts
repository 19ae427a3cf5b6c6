import { describe, expect, it } from 'vitest';
import { stripTerminalControls } from './terminal-text.js';

describe('stripTerminalControls', () => {
  it('removes colours and cursor movement, keeping the text', () => {
    expect(stripTerminalControls('\u001b[31mError:\u001b[0m bad \u001b[1;4minput\u001b[m')).toBe(
      'Error: bad input',
    );
    expect(stripTerminalControls('a\u001b[2K\u001b[1Gb\u001b[?25l')).toBe('ab');
  });

  it('removes window titles and hyperlinks (OSC), ended by BEL or ST', () => {
    expect(stripTerminalControls('\u001b]0;pwned\u0007ok')).toBe('ok');
    expect(
      stripTerminalControls('\u001b]8;;https://example.test\u001b\\link\u001b]8;;\u001b\\'),
    ).toBe('link');
  });

  it('removes device control strings, 8-bit CSI and other escapes', () => {
    expect(stripTerminalControls('x\u001bPq#0;2;0;0;0\u001b\\y')).toBe('xy');
    expect(stripTerminalControls('x\u009b31my')).toBe('xy');
    expect(stripTerminalControls('x\u001b(By\u001bcz')).toBe('xyz');
  });

  it('keeps newlines and tabs, turns CRLF into LF and drops other control characters', () => {
    expect(stripTerminalControls('a\tb\r\nc\rd\u0000e\u0007f\u007fg\n')).toBe('a\tb\ncdefg\n');
  });

  it('returns text without control characters unchanged', () => {
    const text = 'plain text — with unicode ✓ and [brackets]';
    expect(stripTerminalControls(text)).toBe(text);
  });
});
