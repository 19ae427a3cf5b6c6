import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ToolErrorCode } from '@toolsys/core-tool-registry';
import type { Browser } from 'webdriverio';
import { AndroidDeviceError } from '../adb-errors.js';
import type { AdbCallOptions, AndroidDevice } from '../android-device.js';
import type { ScreenPoint, TapTarget, UiBackend } from '../ui-backend.js';
import type { UiNode } from '../ui-hierarchy.js';
import type { LocalAppiumServer } from './appium-server.js';
import { readBoundedPageSource } from './bounded-page-source.js';
import { chooseLocators } from './locator.js';

const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';
/** The device port the UiAutomator2 server listens on. */
const UIAUTOMATOR2_DEVICE_PORT = 6790;
const run = promisify(execFile);

/** Options for {@link AppiumUiBackend}. */
export interface AppiumUiBackendOptions {
  /** A running Appium server (`http://host:port`, with its base path if any). */
  appiumUrl?: string;
  /** A local server to start on first use when `appiumUrl` is not given. */
  local?: LocalAppiumServer;
  /** The adb server port a local Appium server should use (sent as `appium:adbPort`). Default 5037. */
  adbServerPort?: number;
  /**
   * The adb server host a local Appium server should use (sent as `appium:remoteAdbHost`; the
   * driver then also reaches the UiAutomator2 server's port forward on that host). Default the
   * driver's own, 127.0.0.1.
   */
  adbServerHost?: string;
  /** The adb binary; with a local server, stale forwards of a dead session are removed with it. Default `adb`. */
  adbPath?: string;
  /** Extra capabilities for every session (e.g. a device farm's). */
  capabilities?: Record<string, unknown>;
  /** UiAutomator2's `waitForIdleTimeout` setting, in ms, so a busy app does not stall a dump. Default 100. */
  waitForIdleTimeoutMs?: number;
  /** Time limit for starting a session, in ms. Default 120000. */
  sessionStartTimeoutMs?: number;
  /** Time limit of one command on a session (a dump, a tap …), in ms. Default 60000. */
  commandTimeoutMs?: number;
}

/**
 * Settles with `work`, or rejects when the caller's signal aborts or the time limit passes first
 * (the WebDriver request is left to finish on its own; its result is ignored).
 */
async function guarded<T>(
  work: Promise<T>,
  options: { signal?: AbortSignal | undefined; timeoutMs: number; onTimeout: () => Error },
): Promise<T> {
  // An abandoned request may still fail later; that failure is not the caller's any more.
  work.catch(() => undefined);
  options.signal?.throwIfAborted();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(options.onTimeout()), options.timeoutMs);
    onAbort = () => reject(options.signal?.reason ?? new Error('aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * An Appium failure that means the backend cannot be used now: no server could be started or
 * reached, no session could be created, or the session is gone. A command the server refused is
 * no such failure. With `ui: "auto"` the call then runs through adb instead.
 */
export class AppiumUnavailableError extends AndroidDeviceError {
  /**
   * Whether the request provably never ran (the server refused the connection or no longer knew
   * the session), so repeating it at once on a new session is safe.
   */
  readonly notRun: boolean;

  constructor(
    code: AndroidDeviceError['code'],
    message: string,
    options: { hint: string; cause?: unknown; notRun: boolean },
  ) {
    super(code, message, options);
    this.name = 'AppiumUnavailableError';
    this.notRun = options.notRun;
  }
}

/** Whether the request never reached a live session: connection refused, or an unknown session. */
function isNotRun(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const text =
      current instanceof Error
        ? `${current.message} ${String((current as { code?: unknown }).code ?? '')}`
        : String(current);
    if (/ECONNREFUSED|invalid session id|session is either terminated/i.test(text)) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

/** Whether an error means the session or the server behind it is gone. */
function isSessionGone(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /invalid session id|session is either terminated|ECONNREFUSED|ECONNRESET|fetch failed|socket hang up|other side closed|instrumentation process is not running/i.test(
    text,
  );
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? '').replace(/ when running ".*$/, '').slice(0, 300);
}

function elementId(reference: unknown): string | undefined {
  if (typeof reference !== 'object' || reference === null) return undefined;
  const record = reference as Record<string, unknown>;
  const id = record[ELEMENT_KEY] ?? record.ELEMENT;
  return typeof id === 'string' ? id : undefined;
}

/** What the finger does between touching down and lifting: stay (a tap) or move (a swipe). */
type TouchGesture =
  | { type: 'pause'; duration: number }
  | { type: 'pointerMove'; duration: number; x: number; y: number; origin: 'viewport' };

/** One finger on the screen: down at `start`, then `gesture`, then up (W3C pointer actions). */
async function touch(browser: Browser, start: ScreenPoint, gesture: TouchGesture): Promise<void> {
  await browser.performActions([
    {
      type: 'pointer',
      id: 'finger',
      parameters: { pointerType: 'touch' },
      actions: [
        { type: 'pointerMove', duration: 0, x: start.x, y: start.y, origin: 'viewport' },
        { type: 'pointerDown', button: 0 },
        gesture,
        { type: 'pointerUp', button: 0 },
      ],
    },
  ]);
  await browser.releaseActions();
}

/**
 * The UI through Appium 3 and the UiAutomator2 driver (WebdriverIO client, imported on first use):
 * one session per device, created lazily (no reset, a short `waitForIdleTimeout`), reused, created
 * again after it dies, deleted on {@link dispose}. Elements are found by the first locator that
 * is unique on the device's current page: accessibility id, resource-id, UiAutomator selector,
 * XPath.
 */
export class AppiumUiBackend implements UiBackend {
  readonly name = 'appium' as const;
  readonly #options: AppiumUiBackendOptions;
  readonly #sessions = new Map<string, Promise<Browser>>();
  /** Devices whose last session died; their stale port forwards are removed before the next one. */
  readonly #died = new Set<string>();
  /** How many sessions were created, per device serial (tests check reuse with it). */
  readonly sessionsCreated = new Map<string, number>();

  constructor(options: AppiumUiBackendOptions) {
    if (!options.appiumUrl && !options.local) {
      throw new TypeError('AppiumUiBackend needs appiumUrl or a local server');
    }
    this.#options = options;
  }

  /** The local Appium server this backend starts, if it uses one. */
  get localServer(): LocalAppiumServer | undefined {
    return this.#options.local;
  }

  /**
   * The capabilities a new session on `serial` asks for: UiAutomator2 without reset, and for a
   * local server the adb server it must use (`appium:adbPort`, `appium:remoteAdbHost`), then the
   * configured extra capabilities over them. A remote server keeps its own adb settings.
   */
  sessionCapabilities(serial: string): Record<string, unknown> {
    const local = this.#options.local !== undefined;
    return {
      platformName: 'Android',
      'appium:automationName': 'UiAutomator2',
      'appium:udid': serial,
      'appium:noReset': true,
      'appium:newCommandTimeout': 600,
      ...(local && this.#options.adbServerPort !== undefined
        ? { 'appium:adbPort': this.#options.adbServerPort }
        : {}),
      ...(local && this.#options.adbServerHost !== undefined
        ? { 'appium:remoteAdbHost': this.#options.adbServerHost }
        : {}),
      ...this.#options.capabilities,
    };
  }

  /**
   * The capabilities the server reported when it created the device's current session (the
   * driver's view: defaults filled in, without the `appium:` prefix), if there is one.
   */
  async activeCapabilities(serial: string): Promise<Record<string, unknown> | undefined> {
    const session = this.#sessions.get(serial);
    if (!session) return undefined;
    try {
      return (await session).capabilities as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }

  /** The URL sessions are created on (starting the local server if needed). */
  async #serverUrl(): Promise<string> {
    if (this.#options.appiumUrl) return this.#options.appiumUrl;
    try {
      return await (this.#options.local as LocalAppiumServer).ensure();
    } catch (error) {
      throw new AppiumUnavailableError(
        ToolErrorCode.UNSUPPORTED,
        `Could not start a local Appium server: ${firstLine(error)}`,
        {
          hint: 'Install appium and appium-uiautomator2-driver (optional dependencies of @toolsys/platform-android), set packages.platform-android.appiumUrl to a running server, or set ui to "adb".',
          cause: error,
          notRun: false,
        },
      );
    }
  }

  /**
   * Removes the forwards a killed Appium left to the device's UiAutomator2 port: the adb server
   * keeps listening on them, and the driver refuses a systemPort that is busy.
   */
  async #removeStaleForwards(serial: string): Promise<void> {
    if (!this.#options.local) return;
    const adb = this.#options.adbPath ?? 'adb';
    const server = [
      ...(this.#options.adbServerHost ? ['-H', this.#options.adbServerHost] : []),
      '-P',
      String(this.#options.adbServerPort ?? 5037),
    ];
    try {
      const { stdout } = await run(adb, [...server, 'forward', '--list'], { timeout: 10_000 });
      for (const line of stdout.split('\n')) {
        const [owner, local, remote] = line.trim().split(/\s+/);
        if (owner === serial && remote === `tcp:${UIAUTOMATOR2_DEVICE_PORT}` && local) {
          await run(adb, [...server, '-s', serial, 'forward', '--remove', local], {
            timeout: 10_000,
          });
        }
      }
    } catch {
      // Best effort: the driver reports a busy port itself.
    }
  }

  async #createSession(serial: string): Promise<Browser> {
    const url = new URL(await this.#serverUrl());
    if (this.#died.delete(serial)) await this.#removeStaleForwards(serial);
    const { remote } = await import('webdriverio');
    const capabilities = this.sessionCapabilities(serial);
    let browser: Browser;
    try {
      browser = await remote({
        protocol: url.protocol.replace(':', '') as 'http' | 'https',
        hostname: url.hostname,
        port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
        path: url.pathname,
        logLevel: 'silent',
        connectionRetryCount: 0,
        connectionRetryTimeout: this.#options.sessionStartTimeoutMs ?? 120_000,
        capabilities: capabilities as WebdriverIO.Capabilities,
      });
    } catch (error) {
      throw new AppiumUnavailableError(
        ToolErrorCode.UNSUPPORTED,
        `Could not start an Appium UiAutomator2 session on ${serial} through ${url.origin}: ${firstLine(error)}`,
        {
          hint: 'Check that the Appium server runs with the uiautomator2 driver and sees the device (or set packages.platform-android.ui to "adb"), then retry.',
          cause: error,
          notRun: false,
        },
      );
    }
    this.sessionsCreated.set(serial, (this.sessionsCreated.get(serial) ?? 0) + 1);
    try {
      await browser.updateSettings({
        waitForIdleTimeout: this.#options.waitForIdleTimeoutMs ?? 100,
      });
    } catch (error) {
      // A session that cannot take its settings is not used; delete it rather than leak it.
      await browser.deleteSession().catch(() => undefined);
      throw new AndroidDeviceError(
        ToolErrorCode.EXECUTION_FAILED,
        `The Appium session on ${serial} refused the waitForIdleTimeout setting: ${firstLine(error)}`,
        {
          hint: 'Retry; if it persists, check the driver version (appium-uiautomator2-driver 8).',
          cause: error,
        },
      );
    }
    return browser;
  }

  /** The device's session, created on first use. */
  #session(serial: string): Promise<Browser> {
    let session = this.#sessions.get(serial);
    if (!session) {
      session = this.#createSession(serial);
      this.#sessions.set(serial, session);
      session.catch(() => {
        if (this.#sessions.get(serial) === session) this.#sessions.delete(serial);
      });
    }
    return session;
  }

  /**
   * Runs a command on the device's session under the caller's signal and the command time limit;
   * a dead session is forgotten and reported.
   */
  async #call<T>(
    device: AndroidDevice,
    options: AdbCallOptions,
    command: (browser: Browser) => Promise<T>,
  ): Promise<T> {
    const session = this.#session(device.serial);
    const browser = await guarded(session, {
      signal: options.signal,
      timeoutMs: (this.#options.sessionStartTimeoutMs ?? 120_000) + 5_000,
      onTimeout: () =>
        new AppiumUnavailableError(
          ToolErrorCode.TIMEOUT,
          `Starting the Appium session on ${device.serial} took too long.`,
          {
            hint: 'Check the Appium server log and that the device answers adb, then retry.',
            notRun: false,
          },
        ),
    });
    const timeoutMs = options.timeoutMs ?? this.#options.commandTimeoutMs ?? 60_000;
    try {
      return await guarded(command(browser), {
        signal: options.signal,
        timeoutMs,
        onTimeout: () =>
          new AndroidDeviceError(
            ToolErrorCode.TIMEOUT,
            `Appium did not answer within ${Math.round(timeoutMs / 1000)} s on ${device.serial}.`,
            {
              hint: 'The app may be busy or the UiAutomator2 server stuck; retry, or call ui_dump to see the screen.',
            },
          ),
      });
    } catch (error) {
      if (error instanceof AndroidDeviceError || options.signal?.aborted) throw error;
      if (isSessionGone(error)) {
        if (this.#sessions.get(device.serial) === session) this.#sessions.delete(device.serial);
        this.#died.add(device.serial);
        throw new AppiumUnavailableError(
          ToolErrorCode.EXECUTION_FAILED,
          `The Appium session on ${device.serial} ended (${firstLine(error)}); the call did not complete.`,
          {
            hint: 'Retry the same call: it starts a new Appium session. Call ui_dump first if you acted on refs.',
            cause: error,
            notRun: isNotRun(error),
          },
        );
      }
      throw new AndroidDeviceError(
        ToolErrorCode.EXECUTION_FAILED,
        `Appium refused the command on ${device.serial}: ${firstLine(error)}`,
        { hint: 'Call ui_dump to see the current screen, then retry.', cause: error },
      );
    }
  }

  /** The element id of `node` on the device's current page, found by the first unique locator. */
  async #element(browser: Browser, node: UiNode, roots: readonly UiNode[]): Promise<string> {
    const tried: string[] = [];
    for (const locator of chooseLocators(node, roots)) {
      const found = (await browser.findElements(locator.using, locator.value)) as unknown[];
      tried.push(`${locator.using} ${JSON.stringify(locator.value)}: ${found.length}`);
      const id = found.length === 1 ? elementId(found[0]) : undefined;
      if (id) return id;
    }
    throw new AndroidDeviceError(
      ToolErrorCode.NOT_FOUND,
      `No locator finds exactly one element for the node on the device's current page (${tried.join('; ') || 'no locator'}). Nothing was done.`,
      { hint: 'The screen changed: call ui_dump and use a ref from it.' },
    );
  }

  async readHierarchy(device: AndroidDevice, options: AdbCallOptions = {}): Promise<string> {
    const timeoutMs = options.timeoutMs ?? this.#options.commandTimeoutMs ?? 60_000;
    // Read by this backend, not the WebDriver client, which would buffer any answer whole.
    return this.#call(device, options, async (browser) =>
      readBoundedPageSource({
        serverUrl: await this.#serverUrl(),
        sessionId: browser.sessionId,
        signal: AbortSignal.any([
          AbortSignal.timeout(timeoutMs),
          ...(options.signal ? [options.signal] : []),
        ]),
        ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
      }),
    );
  }

  async tap(
    device: AndroidDevice,
    target: TapTarget,
    options: AdbCallOptions = {},
  ): Promise<string | undefined> {
    return this.#call(device, options, async (browser) => {
      if (target.node && target.roots && !target.longPress) {
        await browser.elementClick(await this.#element(browser, target.node, target.roots));
        return undefined;
      }
      await touch(browser, target.point, { type: 'pause', duration: target.longPress ? 600 : 50 });
      return undefined;
    });
  }

  async swipe(
    device: AndroidDevice,
    from: ScreenPoint,
    to: ScreenPoint,
    durationMs: number,
    options: AdbCallOptions = {},
  ): Promise<string | undefined> {
    return this.#call(device, options, async (browser) => {
      await touch(browser, from, {
        type: 'pointerMove',
        duration: durationMs,
        x: to.x,
        y: to.y,
        origin: 'viewport',
      });
      return undefined;
    });
  }

  async typeText(
    device: AndroidDevice,
    field: UiNode,
    roots: readonly UiNode[],
    text: string,
    options: AdbCallOptions & { clear?: boolean } = {},
  ): Promise<string> {
    return this.#call(device, options, async (browser) => {
      const id = await this.#element(browser, field, roots);
      if (options.clear) await browser.elementClear(id);
      await browser.elementSendKeys(id, text);
      return 'Appium element value (UiAutomator2)';
    });
  }

  async screenshot(device: AndroidDevice, options: AdbCallOptions = {}): Promise<Buffer> {
    return this.#call(device, options, async (browser) =>
      Buffer.from(await browser.takeScreenshot(), 'base64'),
    );
  }

  /** Deletes every session (each within 10 s), then stops the local server if one was started. */
  async dispose(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(
      sessions.map(async (session) => {
        try {
          const browser = await session;
          await Promise.race([
            browser.deleteSession(),
            new Promise((resolve) => setTimeout(resolve, 10_000).unref()),
          ]);
        } catch {
          // A session that never started or whose server is gone has nothing to delete.
        }
      }),
    );
    await this.#options.local?.stop();
  }
}
