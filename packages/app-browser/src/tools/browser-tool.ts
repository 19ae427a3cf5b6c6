import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  cancelledFailure,
  defineTool,
  failureResult,
  isToolError,
  type ToolArtifact,
  type ToolContext,
  type ToolDefinition,
  ToolErrorCode,
  type ToolReturn,
} from '@toolsys/core-tool-registry';
import { scrubToolReturn } from '@toolsys/core-tool-registry/text';
import type { SsrfGuard } from '@toolsys/platform';
import { artifactName } from '../artifact-name.js';
import type { BrowserManager } from '../browser-manager.js';
import type { BrowserSession } from '../browser-session.js';
import { type BrowserTab, READ_TIMEOUT_MS, type TabSnapshot } from '../browser-tab.js';
import type { HostPolicy } from '../host-policy.js';
import {
  cleanPageLine,
  quotePageText,
  scrubSecrets,
  WEB_PAGE_MARKERS,
  webPageBlock,
  withWebPageNotice,
} from '../page-text.js';
import { diffSnapshotsAsync, isEmptyDelta, prepareDiff } from '../snapshot-delta.js';
import { WHOLE_PAGE_VIEW } from '../snapshot-pages.js';
import { type RenderedSnapshot, renderSnapshotAsync } from '../snapshot-render.js';
import { countTokens, lineTokens } from '../token-count.js';

/** What every browser tool is built with. */
export interface BrowserToolsOptions {
  /** The deployment's browser. */
  readonly manager: BrowserManager;
  /** Checks navigation targets (scheme, private and metadata addresses). */
  readonly ssrfGuard: SsrfGuard;
  /** The deployment's host allow / block list for navigation targets. */
  readonly hostPolicy?: HostPolicy;
  /** Directory file uploads are confined to (absolute). */
  readonly workspaceRoot: string;
  /** Directory screenshots, dumps and long snapshots are written to (absolute). */
  readonly artifactsDir: string;
  /**
   * Default token budget of a snapshot result, in real (o200k) tokens of everything the model
   * reads: the page's lines, the tab line, title, notes, markers and notice. Default 6,000.
   */
  readonly maxTokens?: number;
  /** Token budget (real tokens) of the result of an action that reports changes. Default 1,500. */
  readonly deltaMaxTokens?: number;
  /** Longest wait for an element to become actionable, in ms. Default 10,000. */
  readonly actionTimeoutMs?: number;
  /** Longest wait for a page load, in ms. Default 30,000. */
  readonly navigationTimeoutMs?: number;
  /**
   * Longest read of a page's accessibility tree by browser_snapshot, in ms; a page whose script
   * is busy ends the call there with TIMEOUT. Default 25,000.
   */
  readonly readTimeoutMs?: number;
  /**
   * Secret values (API keys, passwords) replaced by `[redacted]` in every result, wherever a page
   * shows them. Values shorter than 4 characters are ignored.
   */
  readonly redact?: readonly string[];
}

/** Resolved settings shared by the tool groups. */
export interface BrowserToolSettings extends BrowserToolsOptions {
  readonly maxTokens: number;
  readonly deltaMaxTokens: number;
  readonly actionTimeoutMs: number;
  readonly navigationTimeoutMs: number;
  readonly readTimeoutMs: number;
}

/** What a browser handler receives besides its arguments. */
export interface BrowserCall {
  readonly session: BrowserSession;
  readonly context: ToolContext;
  readonly settings: BrowserToolSettings;
  /** Notes from the browser lifecycle that must reach the model (restart after a crash). */
  readonly notes: readonly string[];
}

/** Fills in the defaults of {@link BrowserToolsOptions}. */
export function resolveSettings(options: BrowserToolsOptions): BrowserToolSettings {
  return {
    ...options,
    maxTokens: options.maxTokens ?? 6_000,
    deltaMaxTokens: options.deltaMaxTokens ?? 1_500,
    actionTimeoutMs: options.actionTimeoutMs ?? 10_000,
    navigationTimeoutMs: options.navigationTimeoutMs ?? 30_000,
    readTimeoutMs: options.readTimeoutMs ?? READ_TIMEOUT_MS,
  };
}

/**
 * Declares a browser tool: the handler runs with the session's browser state (launched on
 * demand), expected failures thrown as ToolErrors become results, and Playwright's errors are
 * translated into codes and next steps the model can act on.
 */
export function defineBrowserTool<TArgs>(
  settings: BrowserToolSettings,
  definition: Omit<ToolDefinition<TArgs>, 'execute'> & {
    run(args: TArgs, call: BrowserCall): Promise<ToolReturn>;
  },
): ToolDefinition<TArgs> {
  const { run, ...rest } = definition;
  return defineTool({
    ...rest,
    async execute(args, context) {
      if (context.signal.aborted) return cancelledFailure(context.signal);
      let stop: (() => void) | undefined;
      // A cancelled or timed-out call answers at once; the browser work behind it is bounded by
      // the action and navigation time limits.
      const cancelled = new Promise<ToolReturn>((resolve) => {
        stop = () => resolve(cancelledFailure(context.signal));
        context.signal.addEventListener('abort', stop, { once: true });
      });
      const work = settings.manager
        .withSession(context.sessionId, async ({ session, notes }) => {
          // What the session records from now on is redacted before it is kept or cut.
          session.secrets = settings.redact ?? [];
          return prependNotes(await run(args, { session, context, settings, notes }), notes);
        })
        .catch(translateError);
      try {
        const result = redactSecrets(await Promise.race([work, cancelled]), settings.redact ?? []);
        return addWebPageNotice(capResult(result));
      } finally {
        if (stop) context.signal.removeEventListener('abort', stop);
      }
    },
  });
}

export { scrubSecrets };

/**
 * Most characters of one result's text. Snapshots keep their own token budget far below it; this
 * bounds any other list a page can fill.
 */
export const MAX_RESULT_CHARS = 200_000;

/** Cuts a result's text at {@link MAX_RESULT_CHARS}, at a line break, closing an open block. */
function capResult(result: ToolReturn): ToolReturn {
  const content = typeof result === 'string' ? result : result.ok ? result.content : undefined;
  if (content === undefined || content.length <= MAX_RESULT_CHARS) return result;
  let kept = content.slice(0, MAX_RESULT_CHARS);
  const lastBreak = kept.lastIndexOf('\n');
  if (lastBreak > 0) kept = kept.slice(0, lastBreak);
  const opened = kept.split(WEB_PAGE_MARKERS.open).length - 1;
  const closed = kept.split(WEB_PAGE_MARKERS.close).length - 1;
  if (opened > closed) kept += `\n${WEB_PAGE_MARKERS.close}`;
  kept += `\n[result cut at ${MAX_RESULT_CHARS.toLocaleString('en-US')} characters; ${(content.length - kept.length).toLocaleString('en-US')} more not shown]`;
  if (typeof result === 'string' || !result.ok) return kept;
  return { ...result, content: kept };
}

/**
 * Puts the web-page notice once in a result whose text holds page content between markers; not
 * in a later page of a snapshot that continues a page read before (`continued` in its data),
 * whose first page had it.
 */
function addWebPageNotice(result: ToolReturn): ToolReturn {
  if (typeof result === 'string') return withWebPageNotice(result);
  if (!result.ok) return result;
  const data = result.data as { readonly continued?: unknown } | undefined;
  if (data?.continued === true) return result;
  return { ...result, content: withWebPageNotice(result.content) };
}

/**
 * Replaces every secret in a result (text, message, data, artifact descriptions) by
 * `[redacted]`; artifact paths are kept.
 */
export function redactSecrets(result: ToolReturn, secrets: readonly string[]): ToolReturn {
  return scrubToolReturn(result, secrets);
}

function prependNotes(result: ToolReturn, notes: readonly string[]): ToolReturn {
  if (notes.length === 0) return result;
  const prefix = `${notes.join('\n')}\n`;
  if (typeof result === 'string') return `${prefix}${result}`;
  if (result.ok) return { ...result, content: `${prefix}${result.content}` };
  return {
    ...result,
    error: { ...result.error, message: `${result.error.message} (${notes.join(' ')})` },
  };
}

const CLOSED = /Target (page, context or browser )?(has been )?closed|Browser has been closed/i;

/** Whether an error says the page, its context or the browser closed under the call. */
export function isClosedError(error: unknown): boolean {
  return CLOSED.test(error instanceof Error ? error.message : String(error));
}

/**
 * Whether the tab's page is closed, or closes within `withinMs`: a page that closes itself
 * (`window.close()` in a click handler) races the steps that follow the action.
 */
export async function closesSoon(tab: BrowserTab, withinMs = 1_000): Promise<boolean> {
  if (tab.page.isClosed()) return true;
  return await new Promise<boolean>((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      tab.page.off('close', onClose);
      resolve(tab.page.isClosed());
    }, withinMs);
    tab.page.once('close', onClose);
  });
}

/** Turns a thrown error into a failure result the model can act on. */
export function translateError(error: unknown): ToolReturn {
  if (isToolError(error)) {
    const { cause: _cause, ...options } = error.options;
    return failureResult(error.code, error.message, options);
  }
  const message = error instanceof Error ? error.message : String(error);
  // A message can carry page text (an error the page threw): one cleaned line, never more.
  const first = cleanPageLine((message.split('\n')[0] ?? message).replace(/^[\w.]+:\s*/, ''));
  if (error instanceof Error && error.name === 'TimeoutError') {
    return failureResult(ToolErrorCode.TIMEOUT, `the browser did not finish in time: ${first}`, {
      hint: 'Take a browser_snapshot to see the page state; the element may be hidden, covered or disabled. Retry once, or pick another element.',
    });
  }
  if (isClosedError(error)) {
    return failureResult(ToolErrorCode.EXECUTION_FAILED, `the tab or browser closed: ${first}`, {
      hint: 'browser_show lists the open tabs and browser_navigate opens a page; if the browser itself stopped, the next call starts a new one (page state is lost).',
    });
  }
  if (/net::ERR_/.test(message)) {
    const code = /net::ERR_[A-Z_]+/.exec(message)?.[0] ?? 'net::ERR';
    return failureResult(ToolErrorCode.EXECUTION_FAILED, `the page could not be loaded: ${code}`, {
      hint: 'Check the URL (host, port, scheme); the server may be down. Retry once.',
      details: { netError: code },
    });
  }
  return failureResult(ToolErrorCode.EXECUTION_FAILED, first, {
    hint: 'Take a browser_snapshot to see the page state, then adjust and retry once.',
  });
}

/** One line naming a tab: `Tab t1: "Title" — http://…` (for files; results use {@link showPage}). */
export function describeTab(tab: BrowserTab, snapshot: TabSnapshot): string {
  return `Tab ${tab.id}: ${titleLine(snapshot.title, snapshot.url)}`;
}

/** A page's title and address as one line of page content: `"Title" — http://…`. */
export function titleLine(title: string, url: string): string {
  const shown = title === '' ? '(no title)' : quotePageText(title);
  return `${shown} — ${cleanPageLine(url, [], 2_000)}`;
}

/**
 * The lines of a result that show a page: the tab's own line (`Tab t1:`), its title and address
 * in a web-page block, then `between` (the tools' notes, events), then the snapshot's lines in a
 * web-page block, then what the tools say about it (nothing shown, the cut marker) after the
 * block, where the page cannot forge it. A later page that continues a page read before under the
 * same title and address has one line in place of the tab line and title (`continued`).
 */
export function showPage(
  tab: BrowserTab,
  snapshot: TabSnapshot,
  rendered: Pick<RenderedSnapshot, 'body' | 'cutMarker'>,
  options: {
    readonly between?: readonly string[];
    readonly empty?: string;
    readonly continued?: { readonly page: string; readonly start: number };
  } = {},
): string[] {
  const { continued } = options;
  return [
    ...(continued === undefined
      ? [`Tab ${tab.id}:`, webPageBlock([titleLine(snapshot.title, snapshot.url)])]
      : [continuedLine(tab, continued.page, continued.start)]),
    ...(options.between ?? []),
    rendered.body === '' ? (options.empty ?? NOTHING_SHOWN) : webPageBlock([rendered.body]),
    ...(rendered.cutMarker === undefined ? [] : [rendered.cutMarker]),
  ];
}

/**
 * The events of a session since its last result (dialogs, new tabs, downloads), in a web-page
 * block since they carry page text; none when nothing happened.
 */
export function takeEventLines(session: BrowserSession): string[] {
  const events = session.takeEvents();
  return events.length === 0 ? [] : [webPageBlock(events)];
}

/**
 * The tab line of a later page that continues a page read before under the same title and
 * address: `Tab t1, page 4f1c2a9b from node 121 (same title and address):`.
 */
export function continuedLine(tab: BrowserTab, page: string, start: number): string {
  return `Tab ${tab.id}, page ${page} from node ${start + 1} (same title and address):`;
}

/** The text of a snapshot in which nothing is shown. */
export const NOTHING_SHOWN = '(the page shows nothing)';

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

/** A page shown within a budget, see {@link showPageWithin}. */
export interface PageWithin {
  /** The result's lines: `before`, the page (see {@link showPage}) and the whole-page file line. */
  readonly lines: string[];
  readonly rendered: RenderedSnapshot;
  /** The node the page starts at. */
  readonly start: number;
  /** Real tokens of the result's text, the web-page notice included. */
  readonly tokens: number;
  /** The file of the whole page, when the first page was cut. */
  readonly whole?: WholePageFile;
}

/** What {@link showPageWithin} renders. */
export interface PageWithinOptions<T> {
  readonly settings: BrowserToolSettings;
  readonly tab: BrowserTab;
  readonly snapshot: TabSnapshot;
  /** Budget of the whole result, in real tokens. */
  readonly maxTokens: number;
  /** Lines of the result before the page (an action's sentence, events). */
  readonly before?: readonly string[];
  /** Lines between the page's title and its lines (notes, events). */
  readonly between?: readonly string[];
  /** What to say when nothing is shown. */
  readonly empty?: string;
  /**
   * Renders the page's lines within `pageTokens`, or within `continuedTokens` when the page
   * continues a page read before (its frame is shorter); may add lines after `between` (a resume
   * note) and carry a value back.
   */
  render(pageTokens: number, continuedTokens: number): PageRendering<T> | Promise<PageRendering<T>>;
  /** Stops the work on a large page once aborted. */
  readonly signal?: AbortSignal;
}

/** What {@link PageWithinOptions.render} renders. */
export interface PageRendering<T> {
  readonly rendered: RenderedSnapshot;
  readonly start: number;
  readonly between?: readonly string[];
  /** What to say when nothing is shown, instead of `empty`. */
  readonly empty?: string;
  /**
   * The page continues a page read before under the same title and address: its page token
   * and first node (see {@link continuedLine}).
   */
  readonly continued?: { readonly page: string; readonly start: number };
  readonly value?: T;
}

/** Most renderings of one page result, when the first does not hold its budget. */
const MAX_RENDERINGS = 3;

/**
 * Shows a page within a budget of real tokens for everything the model reads: the frame around
 * the page's lines (the lines before, the tab line, title and notes, the web-page markers and
 * notice, the line naming the whole-page file) is counted first and comes out of the budget; the
 * lines fill the rest as they are rendered; the whole text is counted once at the end, and
 * rendered again with less room (rarely: a long resume note) when it is still over. When the
 * first page was cut, the whole page is written to a file named in the last line.
 */
export async function showPageWithin<T>(
  options: PageWithinOptions<T>,
): Promise<PageWithin & { value?: T }> {
  const { settings, tab, snapshot } = options;
  const before = options.before ?? [];
  const between = options.between ?? [];
  const path = wholePagePath(settings, tab);
  const fileLine = wholePageLine(path);
  const frame = [...before, ...showPage(tab, snapshot, { body: '-' }, { between }), fileLine].join(
    '\n',
  );
  // A later page that continues a page read before: one tab line, no title, notice or file line.
  const continuedFrame = [
    ...before,
    ...showPage(
      tab,
      snapshot,
      { body: '-' },
      { between, continued: { page: 'f'.repeat(8), start: 10 ** 9 } },
    ),
  ].join('\n');
  let pageTokens = options.maxTokens - countTokens(withWebPageNotice(frame));
  let continuedTokens = options.maxTokens - countTokens(continuedFrame);
  const compose = async () => {
    const page = await options.render(pageTokens, continuedTokens);
    const empty = page.empty ?? options.empty;
    const lines = [
      ...before,
      ...showPage(tab, snapshot, page.rendered, {
        between: [...between, ...(page.between ?? [])],
        ...(empty === undefined ? {} : { empty }),
        ...(page.continued === undefined ? {} : { continued: page.continued }),
      }),
    ];
    const cut = page.rendered.nextCursor !== undefined && page.start === 0;
    if (cut) lines.push(fileLine);
    const text = lines.join('\n');
    const tokens = countTokens(page.continued === undefined ? withWebPageNotice(text) : text);
    return { ...page, lines, cut, tokens };
  };
  let shown = await compose();
  for (
    let attempt = 1;
    attempt < MAX_RENDERINGS && shown.tokens > options.maxTokens;
    attempt += 1
  ) {
    const over = shown.tokens - options.maxTokens + 8;
    if (over <= 0 || shown.rendered.shownNodes <= 1) break;
    pageTokens -= over;
    continuedTokens -= over;
    shown = await compose();
  }
  const whole = shown.cut
    ? await keepWholePage(settings, tab, snapshot, path, options.signal)
    : undefined;
  return {
    lines: shown.lines,
    rendered: shown.rendered,
    start: shown.start,
    tokens: shown.tokens,
    ...(whole === undefined ? {} : { whole }),
    ...(shown.value === undefined ? {} : { value: shown.value }),
  };
}

/** The file a cut snapshot leaves behind: the whole page, one read away. */
export interface WholePageFile {
  /** Where the whole page was written (absolute, under the artifacts directory). */
  readonly path: string;
  /** The line of the result text that names the file. */
  readonly line: string;
  /** The file as an artifact of the result. */
  readonly artifact: ToolArtifact;
}

/** Where the whole page of a cut snapshot of a tab goes (a new name each time). */
function wholePagePath(settings: BrowserToolSettings, tab: BrowserTab): string {
  return join(settings.artifactsDir, 'snapshots', `${artifactName(tab.id)}.txt`);
}

function wholePageLine(path: string): string {
  return `The whole page (every node, no budget) is in the file ${path}`;
}

/**
 * Writes every node of a snapshot (no budget, nothing collapsed) to `path` and returns the file
 * with the line naming it and its artifact.
 */
async function keepWholePage(
  settings: BrowserToolSettings,
  tab: BrowserTab,
  snapshot: TabSnapshot,
  path: string,
  signal?: AbortSignal,
): Promise<WholePageFile> {
  await mkdir(join(settings.artifactsDir, 'snapshots'), { recursive: true });
  const full = await renderSnapshotAsync(
    snapshot.nodes,
    { maxTokens: Number.POSITIVE_INFINITY, expand: true, pageUrl: snapshot.url },
    signal,
  );
  await writeFile(
    path,
    scrubSecrets(`${describeTab(tab, snapshot)}\n${full.text}\n`, settings.redact ?? []),
  );
  return {
    path,
    line: wholePageLine(path),
    artifact: {
      path,
      mimeType: 'text/plain',
      description: `The whole accessibility tree of tab ${tab.id} (every node, no budget)`,
    },
  };
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
