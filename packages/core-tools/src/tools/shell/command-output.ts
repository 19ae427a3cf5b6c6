// How a command's output is shown to the model: each stream under a header line, the program's text
// between untrusted-content markers with hidden characters as escapes.
import { escapeInvisible, markUntrusted, untrustedMarkers } from '@toolsys/core-tool-registry/text';
import type { CapturedOutput } from '@toolsys/platform';

/** The notice above program output. */
export const OUTPUT_NOTICE = untrustedMarkers('terminal').notice;

/**
 * A command's output as the model is shown it: control, bidi, zero-width and tag characters as
 * visible escapes (`\u202e`, `\x1b`), nothing removed, so a file printed by `cat` reads as it is
 * and a hidden character is seen, not obeyed.
 */
export function showOutput(text: string): string {
  return escapeInvisible(text, { keepNewlines: true });
}

/** One stream's section: our header line, then the program's text between untrusted markers. */
export function section(name: string, output: CapturedOutput): string {
  const size = output.truncated
    ? `${output.totalBytes} bytes, ${output.omittedBytes} omitted in the middle`
    : `${output.totalBytes} bytes`;
  const body = output.text.endsWith('\n') ? output.text.slice(0, -1) : output.text;
  const header = `--- ${name} (${size}) ---`;
  return body === '' ? header : `${header}\n${markUntrusted(showOutput(body), 'terminal')}`;
}

/** A duration for the model: milliseconds under a second, else seconds with one decimal. */
export function formatDuration(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`;
}
