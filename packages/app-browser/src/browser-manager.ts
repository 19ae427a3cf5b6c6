import { isAbsolute, relative, sep } from 'node:path';
import {
  type HandleOwner,
  handleOwnerKey,
  isKeyOfSession,
  ToolError,
  ToolErrorCode,
} from '@toolsys/core-tool-registry';
import type { SsrfGuard } from '@toolsys/platform';
import type { Browser } from 'playwright-core';
import { BrowserSession } from './browser-session.js';
import { DEFAULT_DOWNLOAD_LIMITS, type DownloadLimits } from './download-limits.js';
import type { DownloadFolder } from './download-store.js';
import { GuardProxy } from './guard-proxy.js';
import type { HostPolicy } from './host-policy.js';
import { countTokens } from './token-count.js';

/** Chromium flags that keep it quiet on a closed network and inside containers. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  // WebRTC sends UDP (STUN, TURN, media) beside the HTTP proxy, so around the SSRF policy: only
  // proxied connections are allowed, which for UDP means none.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/** Options for {@link BrowserManager}. */
export interface BrowserManagerOptions {
  /** Chromium executable (absolute path). */
  readonly executablePath: string;
  /**
   * This replica's name: tab ids become handles that name it (`<replica>.tab-<32 hex>`), so a
   * load balancer routes the calls that pass one back here. Default none: `t1`, `t2` …
   */
  readonly replicaName?: string;
  /** Run without a window. Default true. */
  readonly headless?: boolean;
  /** Close the browser after this long without a call, in ms; 0 keeps it open. Default 300,000. */
  readonly idleTimeoutMs?: number;
  /** Longest wait for the browser to start, in ms. Default 30,000. */
  readonly launchTimeoutMs?: number;
  /**
   * The workspace root (absolute). Downloads are saved below it without following any link on
   * the way from it, so a link planted at any depth cannot send a download outside.
   */
  readonly workspaceRoot: string;
  /** Directory downloads are saved to (absolute, inside `workspaceRoot`). */
  readonly downloadsDir: string;
  /** How the downloads directory is shown to the model (relative to the workspace root). */
  readonly downloadsShownAs: string;
  /**
   * How much one session may download: bytes of one file (default 100 MiB), number of downloads
   * (20) and bytes in all (250 MiB). A download past a cap is stopped and removed, and the
   * result says which cap refused it.
   */
  readonly downloadLimits?: Partial<DownloadLimits>;
  /** Most requests kept per session. Default 500. */
  readonly networkLogSize?: number;
  /** Most console messages kept per session. Default 500. */
  readonly consoleLogSize?: number;
  /** Viewport of new tabs. Default 1280×800. */
  readonly viewport?: { width: number; height: number };
  /**
   * The SSRF policy every request of the browser obeys (typed URLs, links, redirects,
   * subresources): when given, the browser reaches the network only through a loopback proxy
   * that checks each connection with it.
   */
  readonly ssrfGuard?: SsrfGuard;
  /** The deployment's host allow / block list, applied by the same proxy (needs `ssrfGuard`). */
  readonly hostPolicy?: HostPolicy;
}

/** A session ready for a call, with notes the result must carry (browser restarted …). */
export interface SessionLease {
  readonly session: BrowserSession;
  readonly notes: readonly string[];
}

/**
 * One browser per deployment, launched on the first call, with one isolated context per agent
 * session. Closed after an idle period and on dispose; when the browser process dies, the next
 * call starts a new one and says that page state was lost.
 */
export class BrowserManager {
  readonly #options: BrowserManagerOptions;
  #browser: Browser | undefined;
  #launching: Promise<Browser> | undefined;
  /** Browser state per owner, by `handleOwnerKey`. */
  readonly #sessions = new Map<string, Promise<BrowserSession>>();
  #lostReason: string | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #closing = false;
  #proxy: GuardProxy | undefined;
  #proxyUrl: string | undefined;
  #disposed = false;
  #active = 0;

  readonly #downloadFolder: DownloadFolder;
  readonly #downloadLimits: DownloadLimits;

  /** Throws when `downloadsDir` is not inside `workspaceRoot` (a configuration mistake). */
  constructor(options: BrowserManagerOptions) {
    this.#options = options;
    const folder = relative(options.workspaceRoot, options.downloadsDir);
    if (folder === '..' || folder.startsWith(`..${sep}`) || isAbsolute(folder)) {
      throw new Error('BrowserManager: downloadsDir must lie inside workspaceRoot');
    }
    this.#downloadFolder = {
      workspaceRoot: options.workspaceRoot,
      relative: folder === '' ? '.' : folder.split(sep).join('/'),
    };
    this.#downloadLimits = { ...DEFAULT_DOWNLOAD_LIMITS, ...options.downloadLimits };
  }

  /** Whether a browser process is running now. */
  get isRunning(): boolean {
    return this.#browser?.isConnected() ?? false;
  }

  /**
   * Runs `work` with the browser state of `owner` (one principal in one client session: its own
   * context, tabs and downloads, which no other principal reaches even with the same client
   * session id), launching the browser first if needed. The idle timer is paused while any call
   * runs.
   */
  async withSession<T>(owner: HandleOwner, work: (lease: SessionLease) => Promise<T>): Promise<T> {
    if (this.#disposed) {
      throw new ToolError(ToolErrorCode.UNSUPPORTED, 'the browser tools have been shut down', {
        hint: 'The host is stopping; do not retry.',
      });
    }
    this.#active += 1;
    this.#clearIdle();
    try {
      const notes: string[] = [];
      const browser = await this.#ensureBrowser();
      if (this.#lostReason !== undefined) {
        notes.push(this.#lostReason);
        this.#lostReason = undefined;
      }
      const key = handleOwnerKey(owner);
      let pending = this.#sessions.get(key);
      if (!pending) {
        pending = this.#createSession(browser);
        this.#sessions.set(key, pending);
        pending.catch(() => this.#sessions.delete(key));
      }
      const session = await pending;
      return await work({ session, notes });
    } finally {
      this.#active -= 1;
      this.#armIdle();
    }
  }

  /** Closes the contexts and tabs of every principal in the client session `sessionId` (it ended). */
  async closeSession(sessionId: string): Promise<void> {
    const ended = [...this.#sessions.keys()].filter((key) => isKeyOfSession(key, sessionId));
    await Promise.all(
      ended.map(async (key) => {
        const pending = this.#sessions.get(key);
        this.#sessions.delete(key);
        const session = await pending?.catch(() => undefined);
        await session?.context.close().catch(() => undefined);
      }),
    );
  }

  /** Closes the browser and every session; later calls fail with UNSUPPORTED. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    this.#clearIdle();
    await this.#close();
    await this.#proxy?.close();
    this.#proxy = undefined;
  }

  async #ensureBrowser(): Promise<Browser> {
    if (this.#browser?.isConnected()) return this.#browser;
    if (!this.#launching) {
      this.#launching = this.#launch().finally(() => {
        this.#launching = undefined;
      });
    }
    return this.#launching;
  }

  async #launch(): Promise<Browser> {
    let browser: Browser;
    const args = [...CHROMIUM_ARGS];
    if (this.#options.ssrfGuard && !this.#proxy) {
      const proxy = new GuardProxy(this.#options.ssrfGuard, this.#options.hostPolicy);
      this.#proxyUrl = await proxy.start();
      this.#proxy = proxy;
    }
    if (this.#proxyUrl) {
      // `<-loopback>` sends loopback traffic through the proxy too, so the policy covers it.
      args.push(`--proxy-server=${this.#proxyUrl}`, '--proxy-bypass-list=<-loopback>');
    }
    // The tokenizer (~2 MB of merge ranks, ~0.3 s to build) is loaded while Chromium starts, so
    // neither the host's start nor the first snapshot waits for it.
    setImmediate(warmTokenizer);
    try {
      // Loaded on the first launch, so composing the package (detect, gate mode) loads no Playwright.
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({
        executablePath: this.#options.executablePath,
        headless: this.#options.headless ?? true,
        args,
        timeout: this.#options.launchTimeoutMs ?? 30_000,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (error) {
      throw new ToolError(
        ToolErrorCode.EXECUTION_FAILED,
        `the browser could not be started: ${firstLine(error)}`,
        {
          hint: 'Retry once; if it fails again, ask the operator to check the Chromium install (toolsys doctor).',
          cause: error,
        },
      );
    }
    this.#sessions.clear();
    browser.on('disconnected', () => {
      if (this.#browser !== browser) return;
      this.#browser = undefined;
      this.#sessions.clear();
      if (!this.#closing) {
        this.#lostReason =
          'Note: the browser had stopped unexpectedly and was restarted; every tab and its page state (forms, logins, scroll positions) were lost. Navigate again.';
      }
    });
    this.#browser = browser;
    return browser;
  }

  async #createSession(browser: Browser): Promise<BrowserSession> {
    const context = await browser.newContext({
      acceptDownloads: true,
      viewport: this.#options.viewport ?? { width: 1280, height: 800 },
    });
    context.setDefaultTimeout(15_000);
    context.setDefaultNavigationTimeout(30_000);
    return new BrowserSession({
      context,
      downloadFolder: this.#downloadFolder,
      downloadsShownAs: this.#options.downloadsShownAs,
      downloadLimits: this.#downloadLimits,
      networkLogSize: this.#options.networkLogSize ?? 500,
      consoleLogSize: this.#options.consoleLogSize ?? 500,
      ...(this.#options.replicaName === undefined
        ? {}
        : { replicaName: this.#options.replicaName }),
    });
  }

  async #close(): Promise<void> {
    const browser = this.#browser;
    if (!browser) return;
    this.#closing = true;
    try {
      this.#sessions.clear();
      await browser.close().catch(() => undefined);
    } finally {
      if (this.#browser === browser) this.#browser = undefined;
      this.#closing = false;
    }
  }

  #armIdle(): void {
    const idle = this.#options.idleTimeoutMs ?? 300_000;
    if (idle <= 0 || this.#active > 0 || this.#disposed || !this.#browser) return;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#active > 0) return;
      this.#lostReason =
        'Note: the browser had been closed after an idle period; earlier tabs and page state are gone. Navigate again.';
      void this.#close();
    }, idle);
    this.#idleTimer.unref();
  }

  #clearIdle(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? message).slice(0, 300);
}

let tokenizerWarm = false;

/** Loads the tokenizer once per process (see `#launch`). */
function warmTokenizer(): void {
  if (tokenizerWarm) return;
  tokenizerWarm = true;
  countTokens('warm up');
}
