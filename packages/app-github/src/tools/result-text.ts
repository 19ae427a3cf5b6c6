import { type CleaningTally, markUntrusted } from '@toolsys/core-tool-registry/text';
import { UNTRUSTED_NOTICE } from '../untrusted-markers.js';

/**
 * Lines of GitHub content as one marked block: the notice, what cleaning removed (when anything),
 * then the lines inside the untrusted markers.
 */
export function untrustedBlock(lines: readonly string[], tally: CleaningTally): string {
  const removed = tally.describe();
  return `${UNTRUSTED_NOTICE}${removed ? `\n${removed}` : ''}\n${markUntrusted(lines.join('\n'))}`;
}

/** Cuts a text at `max` characters and says how many more there were. */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters]` : text;
}

/** A text on one line: runs of white space become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
