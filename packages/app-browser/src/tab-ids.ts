import { foreignReplicaError, mintHandle, type ToolError } from '@toolsys/core-tool-registry';

/**
 * The id of a session's `count`-th tab: `t<count>` (short, for the model) on an unnamed replica,
 * a handle naming the replica (`<replica>.tab-<32 hex>`) on a named one, so that a load balancer
 * routes the calls that pass it back there.
 */
export function newTabId(count: number, replicaName: string | undefined): string {
  return replicaName === undefined ? `t${count}` : mintHandle('tab', replicaName);
}

/** The NOT_FOUND for a tab id another replica minted (it holds that tab), else undefined. */
export function foreignTabError(
  tabId: string,
  field: string,
  replicaName: string | undefined,
): ToolError | undefined {
  return foreignReplicaError({
    handle: tabId,
    field,
    what: 'browser tab',
    replicaName,
    next: 'Open the page again with browser_navigate (or browser_show with action "open").',
  });
}
