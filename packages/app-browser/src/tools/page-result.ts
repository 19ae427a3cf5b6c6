// How a result shows a page: the tab and title lines, the page within a token budget, and the
// file holding the whole page when a snapshot is cut.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolArtifact } from '@toolsys/core-tool-registry';
import { artifactName } from '../artifact-name.js';
import type { BrowserSession } from '../browser-session.js';
import type { BrowserTab, TabSnapshot } from '../browser-tab.js';
import {
  cleanPageLine,
  quotePageText,
  scrubSecrets,
  webPageBlock,
  withWebPageNotice,
} from '../page-text.js';
import { type RenderedSnapshot, renderSnapshotAsync } from '../snapshot-render.js';
import { countTokens } from '../token-count.js';
import type { BrowserToolSettings } from './browser-tool.js';

/** One line naming a tab: `Tab t1: "Title" — http://…` (for files; results use {@link showPage}). */
export function describeTab(tab: BrowserTab, snapshot: TabSnapshot): string {
  return `Tab ${tab.id}: ${titleLine(snapshot.title, snapshot.url)}`;
}

/** A page's title and address as one line of page content: `"Title" — http://…`. */
export function titleLine(title: string, url: string): string {
  const shown = title === '' ? '(no title)' : quotePageText(title);
  return `${shown} — ${cleanPageLine(url, [], 2_000)}`;
}

/** An open tab of a session as a tab list shows it: title and address cleaned as page content. */
export interface ListedTab {
  readonly id: string;
  readonly url: string;
  readonly title: string;
  /** Whether it is the active tab, the one calls act on by default. */
  readonly active: boolean;
}

/** The open tabs of a session, in opening order, for a tab list (see {@link tabLine}). */
export async function listTabs(
  session: BrowserSession,
  secrets: readonly string[],
): Promise<ListedTab[]> {
  const open = session.openTabs();
  const active = open.length > 0 ? await session.activeTab() : undefined;
  return await Promise.all(
    open.map(async (tab) => ({
      id: tab.id,
      url: cleanPageLine(tab.page.url(), secrets, 2_000),
      title: cleanPageLine(await tab.page.title().catch(() => ''), secrets),
      active: tab === active,
    })),
  );
}

/** One line of a tab list, page content: `* t1: "Title" — http://…` (`*` marks the active tab). */
export function tabLine(tab: {
  readonly id: string;
  readonly title: string;
  readonly url: string;
  readonly active: boolean;
}): string {
  return `${tab.active ? '*' : ' '} ${tab.id}: ${titleLine(tab.title, tab.url)}`;
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
