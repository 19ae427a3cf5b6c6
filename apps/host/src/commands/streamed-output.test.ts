import { describe, expect, it } from 'vitest';
import {
  createStreamedOutput,
  elideStreamedOutput,
  type StreamedOutput,
  StreamedText,
} from './streamed-output.js';

function streams(stdout: string, stderr: string): StreamedOutput {
  const output = createStreamedOutput();
  output.stdout.append(stdout);
  output.stderr.append(stderr);
  return output;
}

describe('elideStreamedOutput', () => {
  it('replaces a streamed stdout section by a note naming its size', () => {
    const rendered = 'exit code 0 (12 ms)\n--- stdout (12 bytes) ---\nhello\nworld';
    expect(elideStreamedOutput(rendered, streams('hello\nworld\n', ''))).toBe(
      'exit code 0 (12 ms)\n--- stdout (12 bytes) ---\n(12 bytes of stdout, shown above)',
    );
  });

  it('replaces both streams', () => {
    const rendered =
      'exit code 1 (3 ms)\n--- stdout (4 bytes) ---\nout\n--- stderr (4 bytes) ---\nerr';
    expect(elideStreamedOutput(rendered, streams('out\n', 'err\n'))).toBe(
      'exit code 1 (3 ms)\n--- stdout (4 bytes) ---\n(4 bytes of stdout, shown above)\n--- stderr (4 bytes) ---\n(4 bytes of stderr, shown above)',
    );
  });

  it('matches only whole lines, never a fragment of the status line', () => {
    const rendered = 'exit code 1 (15 ms)\n--- stdout (2 bytes) ---\n5';
    expect(elideStreamedOutput(rendered, streams('5\n', ''))).toBe(
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
    const elided = elideStreamedOutput(rendered, streams(full, ''));
    expect(elided).toBe(
      `exit code 0 (1 ms)\n--- stdout (${full.length} bytes, ${omitted} omitted in the middle) ---\n(${full.length} bytes of stdout, shown above)`,
    );
  });

  it('leaves the result as it is when the streamed text is not in it', () => {
    const rendered = 'Error: [TIMEOUT] took too long\nNext: raise timeoutMs';
    expect(
      elideStreamedOutput(
        rendered,
        streams('something else\n', 'web_fetch: attempt 1 failed; retrying in 754 ms.\n'),
      ),
    ).toBe(rendered);
  });

  it('changes nothing when nothing was streamed', () => {
    expect(elideStreamedOutput('14', streams('', ''))).toBe('14');
  });

  it('elides the head and tail of a stream longer than what it keeps, naming its full size', () => {
    const line = 'a line of output that repeats\n';
    const output = createStreamedOutput();
    const pieces = 100_000;
    for (let index = 0; index < pieces; index += 1) output.stdout.append(line);
    const full = line.repeat(pieces);
    const head = full.slice(0, 16_384 - (16_384 % line.length));
    const tail = full.slice(-(16_384 - (16_384 % line.length)), -1);
    const rendered = `exit code 0 (1 s)\n--- stdout (${full.length} bytes, x omitted in the middle) ---\n${head}\n… [123 bytes omitted] …\n${tail}`;
    expect(output.stdout.complete).toBe(false);
    expect(elideStreamedOutput(rendered, output)).toBe(
      `exit code 0 (1 s)\n--- stdout (${full.length} bytes, x omitted in the middle) ---\n(${full.length} bytes of stdout, shown above)`,
    );
  });
});

describe('StreamedText', () => {
  it('keeps a short stream whole and counts bytes, not characters', () => {
    const text = new StreamedText();
    text.append('é\n');
    text.append('ok');
    expect(text).toMatchObject({ text: 'é\nok', bytes: 5, complete: true });
  });

  it('keeps only both ends of a long stream', () => {
    const text = new StreamedText();
    text.append('h'.repeat(1024 * 1024));
    for (let index = 0; index < 5; index += 1) text.append('m'.repeat(1024 * 1024));
    text.append('the end');
    expect(text.complete).toBe(false);
    expect(text.bytes).toBe(6 * 1024 * 1024 + 7);
    expect(text.text.startsWith('h'.repeat(1024 * 1024))).toBe(true);
    expect(text.text.endsWith(`${'m'.repeat(1000)}the end`)).toBe(true);
    expect(text.text.length).toBeLessThanOrEqual(3 * 1024 * 1024);
  });

  it('takes the untrusted-content markers around a streamed body away with it', () => {
    const streamed = createStreamedOutput();
    streamed.stdout.append('hello\n');
    const rendered =
      'exit code 0 (2 ms)\n--- stdout (6 bytes) ---\n<untrusted-terminal-content>\nhello\n</untrusted-terminal-content>';
    expect(elideStreamedOutput(rendered, streamed)).toBe(
      'exit code 0 (2 ms)\n--- stdout (6 bytes) ---\n(6 bytes of stdout, shown above)',
    );
  });
});
