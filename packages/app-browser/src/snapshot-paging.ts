import type { AriaNode } from './aria-tree.js';
import { NO_PAUSE, Pace, runSteps, runStepsAsync, type Steps } from './pace.js';
import type { LineMatcher } from './page-text.js';
import type { SnapshotPages } from './snapshot-pages.js';
import { listSnapshotSteps, type RenderedSnapshot, renderSnapshotList } from './snapshot-render.js';
import { resumeSnapshotPage, type SnapshotResumeKind } from './snapshot-resume.js';
import { countTokens } from './token-count.js';

/** Options for {@link pageSnapshot}. */
export interface PageSnapshotOptions {
  /** The tree of the tab as read now. */
  readonly nodes: readonly AriaNode[];
  /** The cut lists kept for the session. */
  readonly pages: SnapshotPages;
  /** The tab the tree is of. */
  readonly tabId: string;
  /** What the snapshot shows besides the page, see `snapshotViewOf`. */
  readonly view: string;
  /** Token budget (real o200k tokens) of the page, notes included. */
  readonly maxTokens: number;
  /**
   * Token budget of the page when it continues a page read before under the same title and
   * address (its frame is shorter). Default `maxTokens`.
   */
  readonly continuedMaxTokens?: number;
  /** The first node to show, from a cut marker. */
  readonly cursor?: number;
  /** The page token given with the cursor. */
  readonly page?: string;
  /** Show only the subtree of the node with this ref. */
  readonly scopeRef?: string;
  /** Show only nodes whose line matches, with their ancestors. */
  readonly find?: LineMatcher;
  /** Keep every repeated sibling. */
  readonly expand?: boolean;
  /** Show link targets, relative to `pageUrl` when they share its origin. */
  readonly urls?: boolean;
  /** Address of the page. */
  readonly pageUrl?: string;
  /** The page's title and address as shown (see `titleLine`), kept with a cut list. */
  readonly where?: string;
}

/** One page of a snapshot, with how it continues the page its cursor came from. */
export interface SnapshotPage {
  readonly rendered: RenderedSnapshot;
  /** The node the page starts at. */
  readonly start: number;
  /** How the cursor was followed, when one was given. */
  readonly resumed?: SnapshotResumeKind;
  /** What the model must read before the page, when anything. */
  readonly note?: string;
  /**
   * Whether the page continues the kept list its cursor came from, unchanged, under the same
   * title and address: the result then says so in place of the title, address and notice.
   */
  readonly continued: boolean;
}

/**
 * Renders the page of a snapshot a call asks for. With a cursor, the tree read now is checked
 * against the list the cursor came from (see `resumeSnapshotPage`), so a page never silently
 * skips, repeats or mixes nodes of two states of the page. A page that was cut is kept for the
 * next cursor. Undefined when `scopeRef` names no node.
 */
export function pageSnapshot(options: PageSnapshotOptions): SnapshotPage | undefined {
  return runSteps(pageSteps(options, NO_PAUSE));
}

/**
 * {@link pageSnapshot} with the tree listed in slices that give the event loop a turn (a page of
 * 200,000 nodes holds no other session); stops with the signal's reason once it is aborted.
 */
export function pageSnapshotAsync(
  options: PageSnapshotOptions,
  signal?: AbortSignal,
): Promise<SnapshotPage | undefined> {
  const pace = new Pace();
  return runStepsAsync(pageSteps(options, pace), pace, signal);
}

function* pageSteps(options: PageSnapshotOptions, pace: Pace): Steps<SnapshotPage | undefined> {
  const { pages, tabId, view, cursor } = options;
  const resuming = cursor !== undefined && (cursor > 0 || options.page !== undefined);
  const found = !resuming
    ? undefined
    : options.page !== undefined
      ? pages.find(tabId, options.page, view)
      : pages.latest(tabId, view);
  const keptView = found === undefined || found.view === view ? found : undefined;
  const current = yield* listSnapshotSteps(options.nodes, pace, {
    maxTokens: options.maxTokens,
    ...(options.scopeRef === undefined ? {} : { scopeRef: options.scopeRef }),
    ...(options.find === undefined ? {} : { find: options.find }),
    expand: options.expand ?? false,
    urls: options.urls ?? false,
    ...(options.pageUrl === undefined ? {} : { pageUrl: options.pageUrl }),
    // A later page keeps the collapsing of the page its cursor came from.
    ...(keptView === undefined ? {} : { collapse: keptView.collapsed }),
  });
  if (current === undefined) return undefined;
  // A page cut with other options (ref, find, expand) is another list: unless it reads the same
  // as this one, its cursor means nothing here, whatever the page did.
  const otherView = found !== undefined && keptView === undefined && current.token !== found.token;
  const kept = otherView ? undefined : found;
  const resume = otherView
    ? {
        kind: 'from-top' as const,
        cursor: 0,
        list: current,
        note: `[page ${options.page} was read with other options (ref, find, regex or expand) than this call, so its cursor does not apply: this is the page for these options from the top. To continue that page, repeat its options with the cursor.]`,
      }
    : resuming
      ? resumeSnapshotPage({
          current,
          cursor,
          ...(options.page === undefined ? {} : { page: options.page }),
          ...(kept === undefined ? {} : { kept }),
        })
      : undefined;
  const start = resume?.cursor ?? cursor ?? 0;
  const note = resume?.note;
  // The kept list read on, unchanged, under the title and address of its first page.
  const continued =
    resume?.kind === 'same-page' &&
    kept !== undefined &&
    resume.list === kept &&
    start > 0 &&
    kept.where !== undefined &&
    kept.where === options.where;
  // A note comes out of the page's budget.
  const noteTokens = note === undefined ? 0 : countTokens(note) + 1;
  const budget = continued ? (options.continuedMaxTokens ?? options.maxTokens) : options.maxTokens;
  const rendered = renderSnapshotList(resume?.list ?? current, {
    maxTokens: budget - noteTokens,
    cursor: start,
  });
  pages.keepCut(tabId, rendered, view, options.where);
  return {
    rendered,
    start,
    continued,
    ...(resume === undefined ? {} : { resumed: resume.kind }),
    ...(note === undefined ? {} : { note }),
  };
}
