import { describe, expect, it } from 'vitest';
import { elideStreamedOutput } from './streamed-output.js';

describe('elideStreamedOutput', () => {
  it('replaces a streamed stdout section by a note naming its size', () => {
    const rendered = 'exit code 0 (12 ms)\n--- stdout (12 bytes) ---\nhello\nworld';
    expect(elideStreamedOutput(rendered, { stdout: 'hello\nworld\n', stderr: '' })).toBe(
      'exit code 0 (12 ms)\n--- stdout (12 bytes) ---\n(12 bytes of stdout, shown above)',
    );
  });

  it('replaces both streams', () => {
    const rendered =
      'exit code 1 (3 ms)\n--- stdout (4 bytes) ---\nout\n--- stderr (4 bytes) ---\nerr';
    expect(elideStreamedOutput(rendered, { stdout: 'out\n', stderr: 'err\n' })).toBe(
      'exit code 1 (3 ms)\n--- stdout (4 bytes) ---\n(4 bytes of stdout, shown above)\n--- stderr (4 bytes) ---\n(4 bytes of stderr, shown above)',
    );
  });

  it('matches only whole lines, never a fragment of the status line', () => {
    const rendered = 'exit code 1 (15 ms)\n--- stdout (2 bytes) ---\n5';
    expect(elideStreamedOutput(rendered, { stdout: '5\n', stderr: '' })).toBe(
      'exit code 1 (15 ms)\n--- stdout (2 bytes) ---\n(2 bytes of stdout, shown above)',
    );
  });

  it('replaces the head, the omitted marker and the tail of a truncated capture', () => {
    const lines = Array.from({ length: 2000 }, (_, index) => `line ${index}`);
    const full = `${lines.join('\n')}\n`;
    const head = full.slice(0, 1000);
    const tail = full.slice(-1000, -1);
    const omitted = full.length - 1000 - 1000;
    const rendered = `exit code 0 (1 ms)\n--- stdout (${full.length} bytes, ${omitted} omitted in the middle) ---\n${head}\n… [${omitted} bytes omitted] …\n${tail}`;
    const elided = elideStreamedOutput(rendered, { stdout: full, stderr: '' });
    expect(elided).toBe(
      `exit code 0 (1 ms)\n--- stdout (${full.length} bytes, ${omitted} omitted in the middle) ---\n(${full.length} bytes of stdout, shown above)`,
    );
  });

  it('leaves the result as it is when the streamed text is not in it', () => {
    const rendered = 'Error: [TIMEOUT] took too long\nNext: raise timeoutMs';
    expect(
      elideStreamedOutput(rendered, {
        stdout: 'something else\n',
        stderr: 'web_fetch: attempt 1 failed; retrying in 754 ms.\n',
      }),
    ).toBe(rendered);
  });

  it('changes nothing when nothing was streamed', () => {
    expect(elideStreamedOutput('14', { stdout: '', stderr: '' })).toBe('14');
  });
});
