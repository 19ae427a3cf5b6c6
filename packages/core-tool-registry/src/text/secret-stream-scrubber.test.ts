import { describe, expect, it } from 'vitest';
import { REDACTED, scrubSecrets } from './secret-scrubber.js';
import { createSecretStreamScrubber } from './secret-stream-scrubber.js';

const KEY_BODY = 'MIIEowIBAAKCAQEAabcdefghijklmnopqrstuvwxyz0123456789+/';
const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${KEY_BODY}\n${KEY_BODY}\n-----END RSA PRIVATE KEY-----\n`;

/** Everything a stream shows, fed in the given chunks. */
function streamed(chunks: readonly string[]): string {
  const scrubber = createSecretStreamScrubber();
  return chunks.map((chunk) => scrubber.push(chunk)).join('') + scrubber.flush();
}

/** The text cut into pieces of `size` characters. */
function pieces(text: string, size: number): string[] {
  const result: string[] = [];
  for (let index = 0; index < text.length; index += size)
    result.push(text.slice(index, index + size));
  return result;
}

describe('createSecretStreamScrubber', () => {
  it('drops a private key body split over many chunks, keeping its BEGIN and END lines', () => {
    const text = `before\n${PEM}after\n`;
    for (const size of [1, 3, 7, 16, 50]) {
      const shown = streamed(pieces(text, size));
      expect(shown, `chunks of ${size}`).not.toContain('MIIEowIBAAKCAQEA');
      expect(shown).toBe(
        `before\n-----BEGIN RSA PRIVATE KEY-----\n${REDACTED}\n-----END RSA PRIVATE KEY-----\nafter\n`,
      );
    }
  });

  it('recognises a token split between two chunks', () => {
    const shown = streamed(['export A=ghp_abcdefghijklmn', 'opqrstuvwxyz0123456789 done\n']);
    expect(shown).toBe(`export A=${REDACTED} done\n`);
  });

  it('recognises a token folded over lines that arrive one by one', () => {
    const lines = ['ghp_abcdefgh\n', 'ijklmnopqrst\n', 'uvwxyz012345\n', '6789\n', 'done\n'];
    const shown = streamed(lines);
    expect(shown).not.toContain('ijklmnopqrst');
    expect(shown).toContain('done\n');
  });

  it('shows the same as scrubbing the whole text when nothing is secret', () => {
    const text = 'line one\nline two has words\n'.repeat(100);
    expect(streamed(pieces(text, 13))).toBe(scrubSecrets(text));
  });

  it('releases a complete line at once and holds only a bounded tail', () => {
    const scrubber = createSecretStreamScrubber({ maxHeldChars: 512 });
    expect(scrubber.push('first line\nsecond ')).toBe('first line\n');
    const long = 'word '.repeat(400);
    const shown = scrubber.push(long);
    expect(shown.length).toBeGreaterThan(long.length - 600);
    expect(scrubber.flush().length).toBeLessThan(600);
  });

  it('shows a short line at once unless it starts like a credential', () => {
    const scrubber = createSecretStreamScrubber();
    expect(scrubber.push('started\n')).toBe('started\n');
    expect(scrubber.push('ghp_abcdefgh\n')).toBe('');
    expect(scrubber.push('ijklmnopqrst\nuvwxyz012345\n6789\n')).toBe('');
    expect(scrubber.push('done with it\n')).not.toContain('ijklmnopqrst');
  });

  it('drops the body of a key that never ends', () => {
    const scrubber = createSecretStreamScrubber();
    const shown = scrubber.push(`-----BEGIN PRIVATE KEY-----\n${KEY_BODY}\n`) + scrubber.flush();
    expect(shown).toBe(`-----BEGIN PRIVATE KEY-----\n${REDACTED}\n`);
  });
});
