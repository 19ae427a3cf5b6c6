import { randomBytes } from 'node:crypto';

/**
 * The name (without extension) of a file a tool writes under the data directory for a caller:
 * the time, the parts given (cleaned to `[\w.-]`), and 16 random hex digits. Artifacts of every
 * caller share folders and are read back by name, so a name must not be guessable from the time
 * or the device a page shows; the random part also keeps two calls in the same millisecond apart.
 */
export function artifactFileName(...parts: readonly string[]): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const named = parts.map((part) => part.replaceAll(/[^\w.-]/g, '_')).join('-');
  return `${stamp}-${named}-${randomBytes(8).toString('hex')}`;
}
