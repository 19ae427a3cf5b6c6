import { RecentCaptures } from '@toolsys/core-tool-registry/text';
import type { RenderedSnapshot, SnapshotList } from './snapshot-render.js';

/** One list a cut snapshot page was taken from. */
export interface SnapshotCapture extends SnapshotList {
  /** What the list shows (ref, find, expand), see {@link snapshotViewOf}. */
  readonly view: string;
  /**
   * The page's title and address as its first page showed them: a later page of the same list
   * under the same title and address says only that it continues.
   */
  readonly where?: string;
}

/** Options for {@link SnapshotPages}. */
export interface SnapshotPagesOptions {
  /** Captures kept per tab, newest first. Default 4. */
  readonly perTab?: number;
  /** Tabs kept; the one used least recently is dropped first. Default 8. */
  readonly tabs?: number;
  /** Most lines kept over all captures; the oldest captures go first. Default 100,000. */
  readonly maxLines?: number;
}

/**
 * What a snapshot shows besides the page itself (ref, find, expand, link targets), as a key:
 * captures of one view compare.
 */
export function snapshotViewOf(view: {
  readonly ref?: string | undefined;
  readonly find?: string | undefined;
  readonly regex?: boolean | undefined;
  readonly expand?: boolean | undefined;
  readonly urls?: boolean | undefined;
}): string {
  return JSON.stringify([
    view.ref?.trim() ?? null,
    view.find ?? null,
    view.find === undefined ? false : (view.regex ?? false),
    view.expand ?? false,
    ...(view.urls === true ? ['urls'] : []),
  ]);
}

/** The view of a plain snapshot (no ref, no find, runs collapsed as the budget says). */
export const WHOLE_PAGE_VIEW = snapshotViewOf({});

/**
 * The latest lists cut into pages, per tab, in memory and bounded: a later page of
 * browser_snapshot is checked against the list its cursor came from. Lost when the session or
 * the server ends; pages then fall back to comparing page tokens.
 */
export class SnapshotPages {
  readonly #captures: RecentCaptures<SnapshotCapture>;

  constructor(options: SnapshotPagesOptions = {}) {
    this.#captures = new RecentCaptures({
      tokenOf: (capture) => capture.token,
      // A list of one token is kept once per view: each view's latest stays comparable.
      identityOf: (capture) => JSON.stringify([capture.token, capture.view]),
      sizeOf: (capture) => capture.lines.length,
      perKey: options.perTab ?? 4,
      keys: options.tabs ?? 8,
      maxSize: options.maxLines ?? 100_000,
    });
  }

  /**
   * Keeps the list of a rendered page when the page was cut, with the title and address it was
   * shown under; a list over `maxLines` is not kept.
   */
  keepCut(tabId: string, rendered: RenderedSnapshot, view = WHOLE_PAGE_VIEW, where?: string): void {
    if (rendered.nextCursor === undefined) return;
    this.#captures.keep(tabId, {
      ...rendered.list,
      view,
      ...(where === undefined ? {} : { where }),
    });
  }

  /**
   * The capture of a tab with this token, if still kept: the newest of this view when there is
   * one (two views can render the same lines), else the newest of any view.
   */
  find(tabId: string, token: string, view?: string): SnapshotCapture | undefined {
    return (
      this.#captures.latest(tabId, (capture) => capture.token === token && capture.view === view) ??
      this.#captures.find(tabId, token)
    );
  }

  /** The newest capture of a tab with this view, if any. */
  latest(tabId: string, view: string): SnapshotCapture | undefined {
    return this.#captures.latest(tabId, (capture) => capture.view === view);
  }

  /** Lines kept over all captures. */
  get size(): number {
    return this.#captures.size;
  }
}
