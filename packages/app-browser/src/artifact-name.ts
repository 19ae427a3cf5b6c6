import { randomBytes } from 'node:crypto';

/**
 * The name of a file a browser tool writes under the data directory (without extension): the
 * time, the tab (and element) it shows, and 16 random hex digits. Every session writes into the
 * same folder and tab ids restart at `t1` in each, so without the random part two sessions could
 * write the same name in the same millisecond (one reading the other's page), and a name could
 * be guessed from the time alone.
 */
export function artifactName(tabId: string, element?: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const suffix = randomBytes(8).toString('hex');
  return `${stamp}-${tabId}${element === undefined ? '' : `-${element}`}-${suffix}`;
}
