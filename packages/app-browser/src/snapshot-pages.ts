import type { RenderedSnapshot, SnapshotList } from './snapshot-render.js';

/** One list a cut snapshot page was taken from. */
export interface SnapshotCapture extends SnapshotList {
  /** What the list shows (ref, find, expand), see {@link snapshotViewOf}. */
  readonly view: string;
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

/** What a snapshot shows besides the page itself, as a key: captures of one view compare. */
export function snapshotViewOf(view: {
  readonly ref?: string | undefined;
  readonly find?: string | undefined;
  readonly regex?: boolean | undefined;
  readonly expand?: boolean | undefined;
}): string {
  return JSON.stringify([
    view.ref?.trim() ?? null,
    view.find ?? null,
    view.find === undefined ? false : (view.regex ?? false),
    view.expand ?? false,
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
  readonly #perTab: number;
  readonly #tabs: number;
  readonly #maxLines: number;
  /** Per tab id, newest first; the map's order is the tabs' order of use. */
  readonly #captures = new Map<string, SnapshotCapture[]>();

  constructor(options: SnapshotPagesOptions = {}) {
    this.#perTab = Math.max(1, options.perTab ?? 4);
    this.#tabs = Math.max(1, options.tabs ?? 8);
    this.#maxLines = Math.max(1, options.maxLines ?? 100_000);
  }

  /** Keeps the list of a rendered page when the page was cut; a list over `maxLines` is not kept. */
  keepCut(tabId: string, rendered: RenderedSnapshot, view = WHOLE_PAGE_VIEW): void {
    if (rendered.nextCursor === undefined || rendered.list.lines.length > this.#maxLines) return;
    const capture: SnapshotCapture = { ...rendered.list, view };
    const kept = (this.#captures.get(tabId) ?? []).filter(
      (entry) => entry.token !== capture.token || entry.view !== capture.view,
    );
    kept.unshift(capture);
    kept.length = Math.min(kept.length, this.#perTab);
    this.#captures.delete(tabId);
    this.#captures.set(tabId, kept);
    for (const oldest of this.#captures.keys()) {
      if (this.#captures.size <= this.#tabs) break;
      this.#captures.delete(oldest);
    }
    this.#trim(capture);
  }

  /** The capture of a tab with this token, if still kept. */
  find(tabId: string, token: string): SnapshotCapture | undefined {
    return this.#captures.get(tabId)?.find((entry) => entry.token === token);
  }

  /** The newest capture of a tab with this view, if any. */
  latest(tabId: string, view: string): SnapshotCapture | undefined {
    return this.#captures.get(tabId)?.find((entry) => entry.view === view);
  }

  /** Lines kept over all captures. */
  get size(): number {
    let lines = 0;
    for (const captures of this.#captures.values()) {
      for (const capture of captures) lines += capture.lines.length;
    }
    return lines;
  }

  /** Drops the oldest captures (least recently used tab first) until the lines fit. */
  #trim(newest: SnapshotCapture): void {
    let lines = this.size;
    for (const [tabId, captures] of this.#captures) {
      while (lines > this.#maxLines && captures.length > 0) {
        if (captures.at(-1) === newest) return;
        lines -= (captures.pop() as SnapshotCapture).lines.length;
      }
      if (captures.length === 0) this.#captures.delete(tabId);
      if (lines <= this.#maxLines) return;
    }
  }
}
