import { basename } from 'node:path';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import type { BrowserContext, Dialog, Download, Page, Request } from 'playwright-core';
import { BrowserTab } from './browser-tab.js';
import { type DownloadLimits, watchDownloadSize } from './download-limits.js';
import { type DownloadFolder, saveDownload } from './download-store.js';
import { cleanPageLine, quotePageText, scrubSecrets } from './page-text.js';
import { SnapshotPages } from './snapshot-pages.js';
import { foreignTabError, newTabId } from './tab-ids.js';

/** One request seen by a session. Headers and bodies are never kept. */
export interface NetworkEntry {
  readonly id: number;
  readonly method: string;
  readonly url: string;
  readonly resourceType: string;
  readonly tab: string;
  readonly startedAt: number;
  status?: number;
  /** Response body size in bytes, when known. */
  size?: number;
  durationMs?: number;
  failure?: string;
}

/** One console message or uncaught page error. */
export interface ConsoleEntry {
  readonly type: string;
  readonly text: string;
  readonly tab: string;
  readonly at: number;
}

/** One download started by a page. */
export interface DownloadEntry {
  readonly id: number;
  readonly url: string;
  /** The file name the page suggested, cleaned. */
  readonly fileName: string;
  readonly tab: string;
  /** `refused`: a download cap stopped it (see `failure`); nothing of it is kept. */
  state: 'in_progress' | 'completed' | 'failed' | 'refused';
  /** Where the file is, relative to the workspace root, once saved. */
  path?: string;
  /**
   * The path the file would have had, relative to the workspace root, when something already
   * had that name: the download was saved under {@link path} instead, nothing was replaced.
   */
  renamedFrom?: string;
  size?: number;
  /** Why the download failed or was refused. */
  failure?: string;
}

/** Options for {@link BrowserSession}. */
export interface BrowserSessionOptions {
  /** The session's isolated context. */
  readonly context: BrowserContext;
  /** The workspace folder downloads are saved to, opened race-free without following links. */
  readonly downloadFolder: DownloadFolder;
  /** Path prefix shown for downloads (relative to the workspace root). */
  readonly downloadsShownAs: string;
  /** How much the session may download. */
  readonly downloadLimits: DownloadLimits;
  /** Most network entries kept; older ones are dropped first. */
  readonly networkLogSize: number;
  /** Most console entries kept. */
  readonly consoleLogSize: number;
  /**
   * Most tabs open at once; a tab a page opens beyond it is closed at once and the next result
   * says so. Default {@link DEFAULT_MAX_TABS}.
   */
  readonly maxTabs?: number;
  /** This replica's name, in tab ids when set (see `newTabId`). Default none: `t1`, `t2` … */
  readonly replicaName?: string;
}

/** Tabs a session may have open at once, by default. */
export const DEFAULT_MAX_TABS = 20;
/** Longest console message, page error or request URL kept, in characters (the rest is cut). */
export const MAX_LOGGED_TEXT = 2_000;
/** Characters kept over all console entries of a session; the oldest go first. */
export const MAX_CONSOLE_CHARS = 500_000;
/** Characters kept over all request URLs of a session; the oldest requests go first. */
export const MAX_NETWORK_CHARS = 500_000;
/** Events (dialogs, new tabs, downloads) kept for the next result; later ones are counted. */
export const MAX_PENDING_EVENTS = 20;
/** Longest text of a dialog shown, in characters. */
const MAX_DIALOG_TEXT = 300;

/** How a dialog raised during an action is answered. */
export type DialogAnswer = 'accept' | 'dismiss';

/**
 * The browser state of one agent session: an isolated context with its tabs, the bounded logs of
 * requests and console messages, downloads, and the events (dialogs, new tabs, downloads) that
 * happened since the last result, to be reported with it.
 */
export class BrowserSession {
  readonly context: BrowserContext;
  readonly tabs: BrowserTab[] = [];
  readonly network: NetworkEntry[] = [];
  readonly console: ConsoleEntry[] = [];
  readonly downloads: DownloadEntry[] = [];
  /** Dialogs seen, newest last (bounded). */
  readonly dialogs: string[] = [];
  /** How the next dialogs are answered; actions may set it for their duration. */
  dialogAnswer: DialogAnswer = 'dismiss';
  /**
   * Secret values replaced by `[redacted]` in what the session records (console messages,
   * dialog texts), before anything is cut; the tools set it on every call.
   */
  secrets: readonly string[] = [];
  /** Requests dropped from the ring so far. */
  droppedRequests = 0;
  /** The latest snapshot lists cut into pages, per tab: later pages are checked against them. */
  readonly snapshotPages = new SnapshotPages();
  #active: BrowserTab | undefined;
  #tabCounter = 0;
  #requestCounter = 0;
  #downloadCounter = 0;
  /** Downloads accepted (not refused at their start), against `maxCount`. */
  #acceptedDownloads = 0;
  /** Downloads refused after the list was full: counted, not listed. */
  #unlistedDownloads = 0;
  /** Bytes received so far by running downloads. */
  readonly #receivedBytes = new Map<DownloadEntry, number>();
  /** The copy into the workspace running now; the next one waits for it. */
  #copying: Promise<unknown> = Promise.resolve();
  #events: string[] = [];
  /** Events not kept since the last result, by kind ("dialog", …). */
  #droppedEvents = new Map<string, number>();
  /** Tabs a page opened past the limit and that were closed at once, since the last result. */
  #refusedTabs = 0;
  #consoleChars = 0;
  #networkChars = 0;
  /** Tabs opened by pages (popups) not yet reported; their URL is read when reported. */
  #newTabs: BrowserTab[] = [];
  readonly #requests = new WeakMap<Request, NetworkEntry>();
  readonly #pending = new Set<Promise<unknown>>();
  readonly #options: BrowserSessionOptions;

  constructor(options: BrowserSessionOptions) {
    this.#options = options;
    this.context = options.context;
    this.context.on('page', (page) => {
      if (this.tabs.some((tab) => tab.page === page)) return;
      // A page opening tabs in a loop is stopped at the limit: each one past it closes at once.
      if (this.openTabs().length >= this.maxTabs) {
        this.#refusedTabs += 1;
        page.close().catch(() => undefined);
        return;
      }
      this.#newTabs.push(this.#adopt(page));
    });
  }

  /** The tab actions apply to; opens the first one on demand. */
  async activeTab(): Promise<BrowserTab> {
    if (this.#active && !this.#active.page.isClosed()) return this.#active;
    const open = this.tabs.filter((tab) => !tab.page.isClosed());
    if (open.length > 0) {
      this.#active = open[open.length - 1];
      return this.#active as BrowserTab;
    }
    const page = await this.context.newPage();
    const tab = this.tabs.find((candidate) => candidate.page === page) ?? this.#adopt(page);
    // Opening the first tab is not news for the model.
    this.#newTabs = this.#newTabs.filter((candidate) => candidate !== tab);
    this.#active = tab;
    return tab;
  }

  /** Makes a tab the active one and brings it to the front. */
  async select(tabId: string): Promise<BrowserTab> {
    const tab = this.findTab(tabId);
    await tab.page.bringToFront();
    this.#active = tab;
    return tab;
  }

  /** The open tab with an id; NOT_FOUND otherwise. */
  findTab(tabId: string, field = 'tab'): BrowserTab {
    const tab = this.tabs.find((candidate) => candidate.id === tabId && !candidate.page.isClosed());
    if (!tab) {
      const elsewhere = foreignTabError(tabId, field, this.#options.replicaName);
      if (elsewhere !== undefined) throw elsewhere;
      const open = this.openTabs().map((candidate) => candidate.id);
      throw new ToolError(ToolErrorCode.NOT_FOUND, `${field}: no open tab "${tabId}"`, {
        field,
        hint:
          open.length > 0
            ? `Open tabs: ${open.join(', ')}. browser_show with action "list" shows them.`
            : 'No tab is open; call browser_navigate first.',
      });
    }
    return tab;
  }

  /** Tabs that are still open, oldest first. */
  openTabs(): BrowserTab[] {
    return this.tabs.filter((tab) => !tab.page.isClosed());
  }

  /** Most tabs open at once. */
  get maxTabs(): number {
    return this.#options.maxTabs ?? DEFAULT_MAX_TABS;
  }

  /** Opens a new tab and makes it active; CONFLICT when the session has its most tabs open. */
  async newTab(): Promise<BrowserTab> {
    if (this.openTabs().length >= this.maxTabs) {
      throw new ToolError(
        ToolErrorCode.EXECUTION_FAILED,
        `newTab: this session already has ${this.maxTabs} tabs open, its limit`,
        {
          field: 'newTab',
          hint: 'Close a tab with browser_show (action "close"), or open the page in the active tab.',
        },
      );
    }
    const page = await this.context.newPage();
    const tab = this.tabs.find((candidate) => candidate.page === page) ?? this.#adopt(page);
    this.#newTabs = this.#newTabs.filter((candidate) => candidate !== tab);
    this.#active = tab;
    return tab;
  }

  /**
   * Events since the last call, cleared on read: at most {@link MAX_PENDING_EVENTS} of them, then
   * one line counting the rest. Page texts in them are cleaned single lines.
   */
  takeEvents(): string[] {
    const events = this.#events;
    this.#events = [];
    for (const tab of this.#newTabs) {
      this.#event(
        'new tab',
        `New tab ${tab.id} opened (${cleanPageLine(tab.page.url() || 'about:blank', this.secrets)}); browser_show with action "select" and tab "${tab.id}" switches to it.`,
        events,
      );
    }
    this.#newTabs = [];
    if (this.#refusedTabs > 0) {
      events.push(
        `${this.#refusedTabs} tab${this.#refusedTabs === 1 ? '' : 's'} a page opened ${this.#refusedTabs === 1 ? 'was' : 'were'} closed at once: this session has its limit of ${this.maxTabs} open tabs (browser_show closes tabs).`,
      );
      this.#refusedTabs = 0;
    }
    if (this.#droppedEvents.size > 0) {
      const counts = [...this.#droppedEvents].map(([kind, count]) => `${count} ${kind}`);
      events.push(`… and ${counts.join(', ')} more events, not listed.`);
      this.#droppedEvents.clear();
    }
    return events;
  }

  /** Records an event for the next result, or counts it once {@link MAX_PENDING_EVENTS} wait. */
  #event(kind: string, text: string, into = this.#events): void {
    if (into.length >= MAX_PENDING_EVENTS) {
      this.#droppedEvents.set(kind, (this.#droppedEvents.get(kind) ?? 0) + 1);
      return;
    }
    into.push(text);
  }

  /** Waits (bounded) until tabs opened by pages have started their first document. */
  async settleNewTabs(timeoutMs: number): Promise<void> {
    await Promise.all(
      this.#newTabs.map((tab) =>
        tab.page
          .waitForLoadState('domcontentloaded', { timeout: timeoutMs })
          .catch(() => undefined),
      ),
    );
  }

  /** Waits (bounded) for downloads being saved, so a result can say where they are. */
  async settleDownloads(timeoutMs: number): Promise<void> {
    if (this.#pending.size === 0) return;
    await Promise.race([
      Promise.allSettled([...this.#pending]),
      new Promise((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);
  }

  #adopt(page: Page): BrowserTab {
    const existing = this.tabs.find((tab) => tab.page === page);
    if (existing) return existing;
    this.#tabCounter += 1;
    const tab = new BrowserTab(newTabId(this.#tabCounter, this.#options.replicaName), page);
    this.tabs.push(tab);
    page.on('console', (message) => {
      this.#pushConsole({
        type: message.type(),
        text: this.#loggedText(message.text()),
        tab: tab.id,
        at: Date.now(),
      });
    });
    page.on('pageerror', (error) => {
      this.#pushConsole({
        type: 'pageerror',
        text: this.#loggedText(`${error.name}: ${error.message}`),
        tab: tab.id,
        at: Date.now(),
      });
    });
    page.on('dialog', (dialog) => this.#handleDialog(tab, dialog));
    page.on('download', (download) => this.#track(tab, download));
    page.on('close', () => {
      if (this.#active === tab) this.#active = undefined;
    });
    page.on('request', (request) => {
      this.#requestCounter += 1;
      const url = request.url();
      const entry: NetworkEntry = {
        id: this.#requestCounter,
        method: request.method().slice(0, 20),
        // A data: URL can be megabytes: the log keeps its head.
        url: url.length > MAX_LOGGED_TEXT ? `${url.slice(0, MAX_LOGGED_TEXT)}…` : url,
        resourceType: request.resourceType(),
        tab: tab.id,
        startedAt: Date.now(),
      };
      this.#requests.set(request, entry);
      this.network.push(entry);
      this.#networkChars += entry.url.length;
      while (
        this.network.length > this.#options.networkLogSize ||
        this.#networkChars > MAX_NETWORK_CHARS
      ) {
        const dropped = this.network.shift();
        if (!dropped) break;
        this.#networkChars -= dropped.url.length;
        this.droppedRequests += 1;
      }
    });
    page.on('response', (response) => {
      const entry = this.#requests.get(response.request());
      if (entry) entry.status = response.status();
    });
    page.on('requestfinished', (request) => {
      const entry = this.#requests.get(request);
      if (!entry) return;
      entry.durationMs = Date.now() - entry.startedAt;
      request
        .sizes()
        .then((sizes) => {
          entry.size = sizes.responseBodySize;
        })
        .catch(() => undefined);
    });
    page.on('requestfailed', (request) => {
      const entry = this.#requests.get(request);
      if (!entry) return;
      entry.durationMs = Date.now() - entry.startedAt;
      entry.failure = (request.failure()?.errorText ?? 'failed').slice(0, 200);
    });
    return tab;
  }

  /**
   * A console message or page error as kept: secrets replaced first, then cut to
   * {@link MAX_LOGGED_TEXT} characters with its length stated (a page can log megabytes).
   */
  #loggedText(raw: string): string {
    const text = scrubSecrets(raw, this.secrets);
    if (text.length <= MAX_LOGGED_TEXT) return text;
    return `${text.slice(0, MAX_LOGGED_TEXT)}… (${text.length.toLocaleString('en-US')} chars)`;
  }

  #pushConsole(entry: ConsoleEntry): void {
    this.console.push(entry);
    this.#consoleChars += entry.text.length;
    while (
      this.console.length > this.#options.consoleLogSize ||
      this.#consoleChars > MAX_CONSOLE_CHARS
    ) {
      const dropped = this.console.shift();
      if (!dropped) break;
      this.#consoleChars -= dropped.text.length;
    }
  }

  #handleDialog(tab: BrowserTab, dialog: Dialog): void {
    const type = dialog.type();
    // beforeunload must be accepted or the page can never be left; alerts have one button.
    const answer = type === 'alert' || type === 'beforeunload' ? 'accept' : this.dialogAnswer;
    const said = quotePageText(dialog.message(), this.secrets, MAX_DIALOG_TEXT);
    const text = `A ${type} dialog in tab ${tab.id} said ${said}; it was ${answer === 'accept' ? 'accepted' : 'dismissed'}.`;
    this.#event('dialog', text);
    this.dialogs.push(text);
    while (this.dialogs.length > 50) this.dialogs.shift();
    const settle = answer === 'accept' ? dialog.accept() : dialog.dismiss();
    settle.catch(() => undefined);
  }

  #track(tab: BrowserTab, download: Download): void {
    this.#downloadCounter += 1;
    const fileName = safeFileName(download.suggestedFilename(), this.#downloadCounter);
    const entry: DownloadEntry = {
      id: this.#downloadCounter,
      url: download.url(),
      fileName,
      tab: tab.id,
      state: 'in_progress',
    };
    const limits = this.#options.downloadLimits;
    const used = this.#usedBytes(entry);
    const refusal =
      this.#acceptedDownloads >= limits.maxCount
        ? `this session already made ${limits.maxCount} downloads, the most it may (maxDownloads)`
        : used >= limits.maxTotalBytes
          ? totalReason(limits, used)
          : undefined;
    if (refusal !== undefined) {
      void download
        .cancel()
        .catch(() => undefined)
        .then(() => download.delete())
        .catch(() => undefined);
      this.#refuse(entry, refusal);
      return;
    }
    this.#acceptedDownloads += 1;
    this.downloads.push(entry);
    this.#event('download', `Download ${entry.id} started: ${fileName}.`);
    const work = this.#save(entry, download)
      .catch((error: unknown) => {
        entry.state = 'failed';
        entry.failure = error instanceof Error ? error.message.split('\n')[0] : String(error);
        this.#event('download', `Download ${entry.id} failed: ${entry.failure}.`);
      })
      .finally(() => {
        this.#receivedBytes.delete(entry);
        // The browser's own copy (outside the workspace) is not needed any more.
        void download.delete().catch(() => undefined);
      });
    this.#pending.add(work);
    work.finally(() => this.#pending.delete(work));
  }

  /**
   * Follows a running download, cancelling it as soon as it passes its cap, then copies the
   * finished file into the workspace (bounded again, race-free, never replacing a file).
   */
  async #save(entry: DownloadEntry, download: Download): Promise<void> {
    let stoppedAt: number | undefined;
    let reason = '';
    const stopWatch = watchDownloadSize(download, {
      limit: () => this.#limitOf(entry).bytes,
      onSize: (bytes) => this.#receivedBytes.set(entry, bytes),
      onOver: (bytes) => {
        stoppedAt = bytes;
        reason = this.#limitOf(entry).reason;
        void download.cancel().catch(() => undefined);
      },
    });
    let failure: string | null;
    try {
      failure = await download.failure();
    } finally {
      stopWatch();
    }
    if (stoppedAt !== undefined) {
      this.#refuse(entry, `stopped at ${formatBytes(stoppedAt)} bytes and removed: ${reason}`);
      return;
    }
    if (failure !== null) {
      entry.state = 'failed';
      entry.failure = failure;
      this.#event('download', `Download ${entry.id} failed: ${failure}.`);
      return;
    }
    // One copy at a time: each sees the sizes of the copies before it.
    const copy = this.#copying.then(async () => {
      const limit = this.#limitOf(entry);
      const saved = await saveDownload(
        this.#options.downloadFolder,
        entry.fileName,
        await download.createReadStream(),
        limit.bytes,
      );
      if (saved.ok) {
        entry.size = saved.bytes;
        entry.state = 'completed';
      }
      return { limit, saved };
    });
    this.#copying = copy.catch(() => undefined);
    const { limit, saved } = await copy;
    if (!saved.ok) {
      if (saved.reason === 'too-large') {
        this.#refuse(
          entry,
          `stopped at ${formatBytes(saved.bytes)} bytes and removed: ${limit.reason}`,
        );
        return;
      }
      entry.state = 'failed';
      entry.failure = saved.message;
      this.#event('download', `Download ${entry.id} failed: ${saved.message}.`);
      return;
    }
    const shown = this.#options.downloadsShownAs;
    const prefix = shown === '.' ? '' : `${shown}/`;
    entry.path = `${prefix}${saved.name}`;
    if (saved.renamedFrom === undefined) {
      this.#event(
        'download',
        `Download ${entry.id} saved as ${entry.path} (${formatBytes(saved.bytes)} bytes).`,
      );
      return;
    }
    entry.renamedFrom = `${prefix}${saved.renamedFrom}`;
    this.#event(
      'download',
      `Download ${entry.id} saved as ${entry.path} (${formatBytes(saved.bytes)} bytes); ${entry.renamedFrom} already exists and was left as it was.`,
    );
  }

  /** Records a refused download: listed while the list has room, counted afterwards. */
  #refuse(entry: DownloadEntry, reason: string): void {
    entry.state = 'refused';
    entry.failure = reason;
    const listed = this.downloads.includes(entry);
    if (
      listed ||
      this.downloads.length < this.#options.downloadLimits.maxCount + MAX_REFUSED_LISTED
    ) {
      if (!listed) this.downloads.push(entry);
      this.#event('download', `Download ${entry.id} refused: ${reason}.`);
      return;
    }
    this.#unlistedDownloads += 1;
    if (this.#unlistedDownloads === 1) {
      this.#event(
        'download',
        'The page keeps starting downloads; they are refused and no longer listed one by one.',
      );
    }
  }

  /** Downloads refused after the list was full (counted, not listed). */
  get unlistedDownloads(): number {
    return this.#unlistedDownloads;
  }

  /**
   * Bytes that count against `entry`'s share of the session total: every other saved download,
   * and what the downloads started before it are receiving (an earlier download goes first, so
   * downloads running at once never each leave the room to the other).
   */
  #usedBytes(except: DownloadEntry): number {
    let used = 0;
    for (const entry of this.downloads) {
      if (entry === except) continue;
      if (entry.state === 'completed') used += entry.size ?? 0;
      else if (entry.state === 'in_progress' && entry.id < except.id) {
        used += this.#receivedBytes.get(entry) ?? 0;
      }
    }
    return used;
  }

  /** The most bytes `entry` may have now, and which cap sets it. */
  #limitOf(entry: DownloadEntry): { bytes: number; reason: string } {
    const limits = this.#options.downloadLimits;
    const used = this.#usedBytes(entry);
    const room = Math.max(0, limits.maxTotalBytes - used);
    return room < limits.maxBytes
      ? { bytes: room, reason: totalReason(limits, used) }
      : {
          bytes: limits.maxBytes,
          reason: `a download may have at most ${formatBytes(limits.maxBytes)} bytes (maxDownloadBytes)`,
        };
  }
}

/** Refused downloads listed beyond `maxCount` before they are only counted. */
const MAX_REFUSED_LISTED = 20;

function totalReason(limits: DownloadLimits, used: number): string {
  return `this session's downloads may total at most ${formatBytes(limits.maxTotalBytes)} bytes (maxDownloadTotalBytes), and ${formatBytes(used)} are used`;
}

function formatBytes(bytes: number): string {
  return bytes.toLocaleString('en-US');
}

function safeFileName(suggested: string, id: number): string {
  const cleaned = basename(suggested)
    .replace(/[^\w.\- ]+/g, '_')
    .slice(0, 120);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? `download-${id}` : cleaned;
}
