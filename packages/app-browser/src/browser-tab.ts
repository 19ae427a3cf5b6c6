import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import type { Locator, Page } from 'playwright-core';
import { type AriaNode, collectPlaywrightRefsAsync, normaliseAriaJsonAsync } from './aria-tree.js';
import {
  type HiddenTextMarker,
  type HiddenTextReport,
  hiddenTextMarker,
  hiddenTextsExpression,
  MAX_CHECK_MS,
  MAX_CHECKED_TEXT_NODES,
  MAX_HIDDEN_CHARACTERS,
} from './hidden-text.js';
import { forEachInSlices } from './pace.js';
import { cleanPageText } from './page-text.js';

/** Attribute that marks an interactive element with its stable ref, so a rename keeps the ref. */
export const REF_ATTRIBUTE = 'data-toolsys-ref';
/** At most this many new interactive elements are tagged per snapshot (one round trip each). */
const MAX_TAGS_PER_SNAPSHOT = 150;
const REF_PATTERN = /^(?:f\d+)?e\d+$/;
/**
 * Longest a page's tree may take to read. Reading is bounded apart from actions: a 5,000-row table
 * (10,000 links and buttons) takes 8–9 s on a busy 2-core machine, past the 10 s action bound's
 * margin; the pipeline's quickRead bound (30 s) still leaves time to answer.
 */
export const READ_TIMEOUT_MS = 25_000;

/** A snapshot of one tab: the tree plus where it was taken. */
export interface TabSnapshot {
  readonly nodes: readonly AriaNode[];
  readonly url: string;
  readonly title: string;
  /** Flags the page's hidden text as this snapshot did, when the page had any. */
  readonly markHidden?: HiddenTextMarker;
}

/** Options for {@link BrowserTab.readNode}. */
export interface ReadNodeOptions {
  /** Secret values replaced by `[redacted]`, as in {@link BrowserTab.snapshot}. */
  readonly secrets: readonly string[];
  /** Flags hidden page text in the name; the marker of the snapshot the node is compared with. */
  readonly markHidden?: HiddenTextMarker;
  /** Longest the read may take, in ms. */
  readonly timeoutMs: number;
}

/**
 * One tab of a session: its page and the map between the tools' stable refs and Playwright's aria
 * refs. Playwright keeps a ref only while an element's role and name stay the same; the tab keeps
 * its own ref for an interactive element across renames by tagging the element with
 * {@link REF_ATTRIBUTE}, and renumbers nothing: a ref, once given, names one element of one
 * document until that element leaves the page.
 */
export class BrowserTab {
  /** Short id shown to the model (`t1`). */
  readonly id: string;
  /** The Playwright page. */
  readonly page: Page;
  /** The last snapshot taken of this tab, the base of the next delta. */
  lastSnapshot: TabSnapshot | undefined;
  #counter = 0;
  #documentId: string | undefined;
  readonly #byPlaywright = new Map<string, string>();
  readonly #byPublic = new Map<string, string>();
  readonly #retired = new Set<string>();
  #narrowed = false;

  constructor(id: string, page: Page) {
    this.id = id;
    this.page = page;
  }

  /**
   * Takes a fresh aria snapshot and renames its refs to stable ones. Its texts and title are
   * cleaned as page text, with `secrets` replaced by `[redacted]`. The tree is normalised in
   * slices that give the event loop a turn; `signal` stops it.
   */
  async snapshot(
    secrets: readonly string[] = [],
    timeoutMs: number = READ_TIMEOUT_MS,
    signal?: AbortSignal,
  ): Promise<TabSnapshot> {
    // One deadline bounds every step: a page whose script never yields (a busy loop) answers no
    // evaluation, and Playwright's own timeouts cover only some of them.
    const started = performance.now();
    const deadline = started + timeoutMs;
    const timedOut = () => this.#timedOut(timeoutMs, started, secrets);
    // One round trip reads the document's identity and title while the tree is walked.
    // The page-side check of text a person cannot see runs beside the tree walk.
    const [identity, json, hiddenTexts] = await withinDeadline(
      Promise.all([
        this.page.evaluate(() => {
          const holder = window as unknown as { __toolsysDocumentId?: string };
          holder.__toolsysDocumentId ??= Math.random().toString(36).slice(2);
          return { documentId: holder.__toolsysDocumentId, title: document.title };
        }),
        this.page.ariaSnapshotJSON({ mode: 'ai', timeout: timeoutMs }),
        this.page
          .evaluate<HiddenTextReport>(
            hiddenTextsExpression({
              maxNodes: MAX_CHECKED_TEXT_NODES,
              maxCharacters: MAX_HIDDEN_CHARACTERS,
              maxMs: MAX_CHECK_MS,
            }),
          )
          .catch((): HiddenTextReport => ({ hidden: [], truncated: false })),
      ]),
      deadline,
    ).catch((error: unknown) => {
      if (error instanceof DeadlinePassed) throw timedOut();
      if (!(error instanceof Error && error.name === 'TimeoutError')) throw error;
      throw timedOut();
    });
    this.#narrowed = false;
    if (identity.documentId !== this.#documentId) {
      // A new document: Playwright numbers its refs again, so none of the old ones may be reused.
      for (const ref of this.#byPublic.keys()) this.#retired.add(ref);
      this.#byPlaywright.clear();
      this.#byPublic.clear();
      this.#documentId = identity.documentId;
    }
    const found = await collectPlaywrightRefsAsync(json, signal);
    const present = new Set<string>();
    const fresh: typeof found = [];
    await forEachInSlices(
      found,
      (entry) => {
        present.add(entry.ref);
        if (!this.#byPlaywright.has(entry.ref)) fresh.push(entry);
      },
      signal,
    );
    const tagged = fresh.filter((entry) => entry.interactive).slice(0, MAX_TAGS_PER_SNAPSHOT);
    const candidates = tagged.map(() => this.#nextRef());
    const tagTimeout = Math.max(1, deadline - performance.now());
    const answers = await Promise.all(
      tagged.map((entry, index) =>
        this.page
          .locator(`aria-ref=${entry.ref}`)
          .evaluate(
            (element, [attribute, candidate]) => {
              const existing = element.getAttribute(attribute as string);
              if (existing) return existing;
              element.setAttribute(attribute as string, candidate as string);
              return null;
            },
            [REF_ATTRIBUTE, candidates[index]],
            { timeout: tagTimeout },
          )
          .catch(() => null),
      ),
    );
    tagged.forEach((entry, index) => {
      const existing = answers[index];
      const previous = existing ? this.#byPublic.get(existing) : undefined;
      const reuse = existing !== null && existing !== undefined && previous !== undefined;
      // Reuse the element's ref only when its old Playwright ref has left the page.
      const ref = reuse && !present.has(previous) ? existing : (candidates[index] as string);
      if (reuse && ref === existing) this.#byPlaywright.delete(previous);
      this.#assign(entry.ref, ref);
    });
    // A page of 200,000 nodes has as many refs: they are booked in slices too.
    await forEachInSlices(
      fresh,
      (entry) => {
        if (!this.#byPlaywright.has(entry.ref)) this.#assign(entry.ref, this.#nextRef());
      },
      signal,
    );
    await forEachInSlices(
      [...this.#byPlaywright],
      ([playwrightRef, ref]) => {
        if (present.has(playwrightRef)) return;
        this.#byPlaywright.delete(playwrightRef);
        if (this.#byPublic.get(ref) === playwrightRef) {
          this.#byPublic.delete(ref);
          this.#retired.add(ref);
        }
      },
      signal,
    );
    const markHidden = hiddenTextMarker(
      hiddenTexts.hidden.map((text) => cleanPageText(text, secrets)),
    );
    const nodes = await normaliseAriaJsonAsync(
      json,
      (playwrightRef) => this.#byPlaywright.get(playwrightRef),
      { secrets, ...(markHidden === undefined ? {} : { markHidden }) },
      signal,
    );
    return {
      nodes,
      url: cleanPageText(this.page.url(), secrets),
      title: cleanPageText(identity.title, secrets),
      ...(markHidden === undefined ? {} : { markHidden }),
    };
  }

  /**
   * Whether {@link readNode} ran since the last {@link snapshot}: Playwright resolves refs from its
   * latest read of a frame, so refs outside the element read then resolve again only after the
   * next snapshot.
   */
  get isNarrowed(): boolean {
    return this.#narrowed;
  }

  /**
   * The node of `ref` as the page holds it now, read from that element alone (its role, name,
   * state and subtree, normalised as {@link snapshot} normalises the page); undefined when the
   * element is no longer shown as a node of the tree. Costs two round trips however large the
   * page is. Throws as {@link locate} does, NOT_FOUND when the element left the page, and TIMEOUT
   * past `timeoutMs` (a page whose script is busy answers neither round trip).
   */
  async readNode(ref: string, options: ReadNodeOptions): Promise<AriaNode | undefined> {
    const trimmed = ref.trim();
    const locator = this.locate(trimmed);
    const started = performance.now();
    const bounded = <T>(work: Promise<T>) =>
      withinDeadline(work, started + options.timeoutMs).catch((error: unknown) => {
        const expired =
          error instanceof DeadlinePassed ||
          (error instanceof Error && error.name === 'TimeoutError');
        if (expired) throw this.#timedOut(options.timeoutMs, started, options.secrets);
        throw error;
      });
    if ((await bounded(locator.count())) === 0) {
      throw new ToolError(
        ToolErrorCode.NOT_FOUND,
        `ref: element ${trimmed} is gone from the page`,
        {
          field: 'ref',
          hint: 'Take a new browser_snapshot and use a ref from it.',
        },
      );
    }
    this.#narrowed = true;
    const json = await bounded(
      locator.ariaSnapshotJSON({ mode: 'ai', timeout: options.timeoutMs }),
    );
    // The element is the one entry of its own tree; an element that lost its role (none,
    // presentation, hidden) leaves its children there instead.
    const entries = Array.isArray(json) ? json : [json];
    const root = entries.length === 1 ? (entries[0] as { ref?: unknown }) : undefined;
    const rootRef = typeof root?.ref === 'string' ? root.ref : undefined;
    if (rootRef === undefined) return undefined;
    const nodes = await normaliseAriaJsonAsync(
      entries,
      (playwrightRef) => (playwrightRef === rootRef ? trimmed : undefined),
      {
        secrets: options.secrets,
        ...(options.markHidden === undefined ? {} : { markHidden: options.markHidden }),
      },
    );
    return nodes.find((node) => node.ref === trimmed);
  }

  #timedOut(timeoutMs: number, started: number, secrets: readonly string[]): ToolError {
    return new ToolError(
      ToolErrorCode.TIMEOUT,
      `reading tab ${this.id}'s accessibility tree took longer than ${formatMs(timeoutMs)} and was stopped after ${formatMs(performance.now() - started)} (the page's script is busy, or the page is very large)`,
      {
        hint: `The tab stays on ${cleanPageText(this.page.url(), secrets)}. A page that is busy may answer later: retry browser_snapshot once, or browser_screenshot it; a page too large to read whole shows in browser_screenshot.`,
        retryable: false,
        // The page is stalled, not the browser tools: other pages and sessions are not affected.
        details: { timeoutMs, targetScoped: true },
      },
    );
  }

  /**
   * The locator of a stable ref. Throws INVALID_ARGUMENT for a malformed ref and NOT_FOUND for a
   * ref that never existed or whose element left the page.
   */
  locate(ref: string, field = 'ref'): Locator {
    const trimmed = ref.trim();
    if (!REF_PATTERN.test(trimmed)) {
      throw new ToolError(
        ToolErrorCode.INVALID_ARGUMENT,
        `${field}: "${ref}" is not a ref; refs look like "e12" and come from browser_snapshot`,
        { field, hint: 'Take a browser_snapshot and pass a ref shown as [ref=eN].' },
      );
    }
    const playwrightRef = this.#byPublic.get(trimmed);
    if (playwrightRef === undefined) {
      const gone = this.#retired.has(trimmed);
      throw new ToolError(
        ToolErrorCode.NOT_FOUND,
        gone
          ? `${field}: element ${trimmed} is gone from the page (it was removed, or the page navigated)`
          : `${field}: no element has ref ${trimmed} in tab ${this.id}`,
        {
          field,
          hint: 'Take a new browser_snapshot and use a ref from it.',
        },
      );
    }
    return this.page.locator(`aria-ref=${playwrightRef}`);
  }

  #assign(playwrightRef: string, ref: string): void {
    this.#byPlaywright.set(playwrightRef, ref);
    this.#byPublic.set(ref, playwrightRef);
    this.#retired.delete(ref);
  }

  #nextRef(): string {
    this.#counter += 1;
    return `e${this.#counter}`;
  }
}

/** Rejection of {@link withinDeadline} when the deadline passed first. */
class DeadlinePassed extends Error {}

/** Settles as `work` does, or rejects with {@link DeadlinePassed} at `deadline` (performance.now()). */
function withinDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DeadlinePassed()),
      Math.max(0, deadline - performance.now()),
    );
  });
  // The abandoned work may still reject later (the page closed): nobody waits for it.
  work.catch(() => undefined);
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

function formatMs(ms: number): string {
  return ms >= 1_000 ? `${Math.round(ms / 100) / 10} s` : `${Math.round(ms)} ms`;
}
