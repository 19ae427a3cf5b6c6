import { artifactFileName } from '@toolsys/platform';

/**
 * The name of a file a browser tool writes under the data directory (without extension): the
 * time, the tab (and element) it shows, and 16 random hex digits (see `artifactFileName`). Every
 * session writes into the same folder and tab ids restart at `t1` in each.
 */
export function artifactName(tabId: string, element?: string): string {
  return element === undefined ? artifactFileName(tabId) : artifactFileName(tabId, element);
}
