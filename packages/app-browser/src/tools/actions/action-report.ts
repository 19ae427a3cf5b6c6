// What an action reports afterwards: its sentence, events, and what changed in the page (or
// the whole page, budgeted).
import type { ToolArtifact } from '@toolsys/core-tool-registry';
import type { BrowserTab, TabSnapshot } from '../../browser-tab.js';
import { cleanPageLine, quotePageText, webPageBlock, withWebPageNotice } from '../../page-text.js';
import { diffSnapshotsAsync, isEmptyDelta, prepareDiff } from '../../snapshot-delta.js';
import { WHOLE_PAGE_VIEW } from '../../snapshot-pages.js';
import { renderSnapshotAsync } from '../../snapshot-render.js';
import { countTokens, lineTokens } from '../../token-count.js';
import { type BrowserCall, closesSoon, isClosedError } from '../browser-tool.js';
import { showPageWithin, takeEventLines, titleLine } from '../page-result.js';

/** How an action reports the page afterwards. */
export type SnapshotMode = 'delta' | 'full' | 'none';

/** What an action reports: the text the model reads, its structured data and files. */
export interface ActionReport {
  readonly content: string;
  readonly data: Record<string, unknown>;
  /** The whole page, when the full snapshot of `snapshot: "full"` was cut at its budget. */
  readonly artifacts?: readonly ToolArtifact[];
}

/**
 * The result of an action: the action's own sentence, events (dialogs, new tabs, downloads),
 * then what changed in the page since the tab's previous snapshot (or the full budgeted
 * snapshot, cut as browser_snapshot cuts it), and how to see the whole page.
 */
export async function reportAfterAction(
  call: BrowserCall,
  tab: BrowserTab,
  summary: string,
  mode: SnapshotMode,
): Promise<ActionReport> {
  const { session, settings } = call;
  await session.settleDownloads(2_000);
  const before = tab.lastSnapshot;
  const lines = [summary];
  const data: Record<string, unknown> = { tab: tab.id };
  // The page closed its own tab (window.close()); there is nothing left to compare.
  const reportClosed = async () => {
    await session.settleNewTabs(Math.min(settings.actionTimeoutMs, 5_000));
    lines.push(...takeEventLines(session), `Tab ${tab.id} closed itself.`);
    const open = session.openTabs();
    if (open.length > 0) lines.push(`The active tab is now ${(await session.activeTab()).id}.`);
    return { content: lines.join('\n'), data };
  };
  if (tab.page.isClosed()) return reportClosed();
  try {
    return await reportOnPage(call, tab, before, lines, data, mode);
  } catch (error) {
    // A close the page started during the action can land while the page is being read.
    if (isClosedError(error) && (await closesSoon(tab))) return reportClosed();
    throw error;
  }
}

/** The rest of {@link reportAfterAction}, on a page that is still open. */
async function reportOnPage(
  call: BrowserCall,
  tab: BrowserTab,
  before: TabSnapshot | undefined,
  lines: string[],
  data: Record<string, unknown>,
  mode: SnapshotMode,
): Promise<ActionReport> {
  const { session, settings } = call;
  const active = await session.activeTab();
  if (mode === 'none') {
    await session.settleNewTabs(Math.min(settings.actionTimeoutMs, 5_000));
    lines.push(...takeEventLines(session));
    return { content: lines.join('\n'), data };
  }
  // The delta's base is read while the page settles, not after.
  await settle(tab, settings.actionTimeoutMs, () => {
    if (mode === 'delta' && before) prepareDiff(before.nodes);
  });
  await session.settleNewTabs(Math.min(settings.actionTimeoutMs, 5_000));
  const after = await tab.snapshot(settings.redact, undefined, call.context.signal);
  tab.lastSnapshot = after;
  data.url = after.url;
  data.title = after.title;
  lines.push(...takeEventLines(session));
  if (active !== tab) lines.push(`The active tab is now ${active.id}.`);
  if (mode === 'full' || !before) {
    const shown = await showPageWithin({
      settings,
      tab,
      snapshot: after,
      maxTokens: settings.maxTokens,
      before: lines,
      signal: call.context.signal,
      render: async (pageTokens) => ({
        rendered: await renderSnapshotAsync(
          after.nodes,
          { maxTokens: pageTokens, pageUrl: after.url },
          call.context.signal,
        ),
        start: 0,
      }),
    });
    session.snapshotPages.keepCut(
      tab.id,
      shown.rendered,
      WHOLE_PAGE_VIEW,
      titleLine(after.title, after.url),
    );
    const { whole } = shown;
    if (!whole) return { content: shown.lines.join('\n'), data };
    return {
      content: shown.lines.join('\n'),
      data: {
        ...data,
        nextCursor: shown.rendered.nextCursor,
        page: shown.rendered.page,
        savedTo: whole.path,
      },
      artifacts: [whole.artifact],
    };
  }
  const moved: string[] = [];
  if (before.url !== after.url) {
    moved.push(`URL changed: ${cleanPageLine(before.url)} → ${cleanPageLine(after.url)}`);
  }
  if (before.title !== after.title) {
    moved.push(`Title changed: ${quotePageText(before.title)} → ${quotePageText(after.title)}`);
  }
  const delta = await diffSnapshotsAsync(before.nodes, after.nodes, call.context.signal);
  if (isEmptyDelta(delta)) {
    if (moved.length > 0) lines.push(webPageBlock(moved));
    lines.push('No change in the page.');
    return { content: lines.join('\n'), data };
  }
  const changeLines = [
    ...delta.added.map((line) => `+ ${line}`),
    ...delta.changed.map((line) => `~ ${line}`),
    ...delta.removed.map((line) => `- ${line}`),
  ];
  data.changes = {
    added: delta.added.length,
    changed: delta.changed.length,
    removed: delta.removed.length,
  };
  if (moved.length > 0) lines.push(webPageBlock(moved));
  lines.push(
    `Changes (${delta.added.length} added, ${delta.changed.length} changed, ${delta.removed.length} removed):`,
  );
  // The budget holds the whole result: what comes before the changes, their markers, the notice
  // and the closing line are counted first, and the changes fill what is left, line by line.
  const moreLine = (count: number) =>
    `[${count} more changes not shown; browser_snapshot shows the whole page]`;
  const frame = countTokens(
    withWebPageNotice([...lines, webPageBlock([]), moreLine(changeLines.length)].join('\n')),
  );
  const room = settings.deltaMaxTokens - frame;
  let used = 0;
  let shown = 0;
  const changes: string[] = [];
  for (const line of changeLines) {
    const cost = lineTokens(line);
    if (used + cost > room && shown > 0) break;
    changes.push(line);
    used += cost;
    shown += 1;
  }
  lines.push(webPageBlock(changes));
  if (shown < changeLines.length) {
    lines.push(moreLine(changeLines.length - shown));
  } else {
    lines.push('(browser_snapshot shows the whole page)');
  }
  return { content: lines.join('\n'), data };
}

/**
 * Waits briefly for the page to settle after an action (navigation started by it, DOM work).
 * `meanwhile` runs in this process while the page waits.
 */
async function settle(tab: BrowserTab, timeoutMs: number, meanwhile: () => void): Promise<void> {
  await tab.page
    .waitForLoadState('load', { timeout: Math.min(timeoutMs, 5_000) })
    .catch(() => undefined);
  const quiet = tab.page
    .evaluate(
      () =>
        new Promise<void>((resolve) => {
          requestAnimationFrame(() => setTimeout(resolve, 50));
          setTimeout(resolve, 500);
        }),
    )
    .catch(() => undefined);
  // One turn of the event loop sends the request to the browser; the page's wait then starts.
  await new Promise((resolve) => setImmediate(resolve));
  meanwhile();
  // A page whose script is busy answers no evaluation: the wait is bounded here too.
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([quiet, new Promise((resolve) => (timer = setTimeout(resolve, 1_000)))]);
  clearTimeout(timer);
}
