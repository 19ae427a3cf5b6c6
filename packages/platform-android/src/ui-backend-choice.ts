import { findAppiumInstall, LocalAppiumServer } from './appium/appium-server.js';
import { AppiumUiBackend } from './appium/appium-ui-backend.js';
import { AutoUiBackendChoice } from './auto-ui-backend-choice.js';
import { AdbUiBackend, type UiBackend, UiBackendChoice } from './ui-backend.js';

/** How the UI tools reach the screen; see {@link createUiBackendChoice}. */
export interface UiBackendOptions {
  /**
   * `adb` (default), `appium`, or `auto`: Appium when its URL answers or it can be started, else
   * adb; a call whose Appium fails as unusable runs through adb, and Appium is tried again after
   * `appiumRetryMs`.
   */
  ui?: 'adb' | 'appium' | 'auto';
  /** A running Appium server, e.g. `http://127.0.0.1:4723` (with its base path if it has one). */
  appiumUrl?: string;
  /** Without appiumUrl, start a local Appium on 127.0.0.1 with the driver from npm. Default true. */
  appiumStart?: boolean;
  /** Port of the local Appium; 0 (default) picks a free one. */
  appiumPort?: number;
  /** APPIUM_HOME of the local Appium: a package dir whose dependencies include the driver. Default this package. */
  appiumHome?: string;
  /** Extra capabilities for every Appium session. */
  appiumCapabilities?: Record<string, unknown>;
  /** The adb binary (a local Appium derives ANDROID_HOME from it). */
  adbPath?: string;
  /** The adb server port (a local Appium uses the same server). */
  adbServerPort?: number;
  /** The adb server host (a local Appium uses the same server). Default 127.0.0.1. */
  adbServerHost?: string;
  /** Environment of a local Appium. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * With `auto`: how long adb is used after Appium was missing or unusable before Appium is
   * tried again, in ms. Default 60000.
   */
  appiumRetryMs?: number;
  /** With `auto`: the clock of that back-off, in ms. Default `Date.now`. */
  now?: () => number;
}

/** Whether an Appium server answers `GET /status` at `url` within 2 s. */
export async function appiumAnswers(url: string): Promise<boolean> {
  try {
    const response = await fetch(new URL('status', url.endsWith('/') ? url : `${url}/`), {
      signal: AbortSignal.timeout(2_000),
    });
    return response.ok;
  } catch {
    return false;
  }
}

function appiumBackend(options: UiBackendOptions): AppiumUiBackend {
  if (options.appiumUrl) {
    return new AppiumUiBackend({
      appiumUrl: options.appiumUrl,
      ...(options.appiumCapabilities ? { capabilities: options.appiumCapabilities } : {}),
    });
  }
  return new AppiumUiBackend({
    local: new LocalAppiumServer({
      ...(options.appiumHome ? { appiumHome: options.appiumHome } : {}),
      ...(options.appiumPort ? { port: options.appiumPort } : {}),
      ...(options.adbPath ? { adbPath: options.adbPath } : {}),
      ...(options.env ? { env: options.env } : {}),
    }),
    ...(options.adbServerPort === undefined ? {} : { adbServerPort: options.adbServerPort }),
    ...(options.adbServerHost === undefined ? {} : { adbServerHost: options.adbServerHost }),
    ...(options.adbPath ? { adbPath: options.adbPath } : {}),
    ...(options.appiumCapabilities ? { capabilities: options.appiumCapabilities } : {}),
  });
}

/**
 * The UI backend the options ask for. Nothing is contacted or started here: `auto` looks for
 * Appium on the first UI call (and again after each back-off), and a local Appium starts on the
 * first call that needs a session.
 */
export function createUiBackendChoice(options: UiBackendOptions): UiBackendChoice {
  const ui = options.ui ?? 'adb';
  if (ui === 'adb') return UiBackendChoice.fixed(new AdbUiBackend());
  if (ui === 'appium') {
    if (!options.appiumUrl && options.appiumStart === false) {
      throw new TypeError('ui "appium" needs appiumUrl, or appiumStart left on');
    }
    return UiBackendChoice.fixed(appiumBackend(options));
  }
  return new AutoUiBackendChoice({
    async probe(): Promise<UiBackend | string> {
      if (options.appiumUrl) {
        return (await appiumAnswers(options.appiumUrl))
          ? appiumBackend(options)
          : `Appium at ${options.appiumUrl} does not answer`;
      }
      if (options.appiumStart === false) return 'no Appium URL and local start is off';
      const install = findAppiumInstall(options.appiumHome);
      return typeof install === 'string' ? install : appiumBackend(options);
    },
    ...(options.appiumRetryMs === undefined ? {} : { retryAfterMs: options.appiumRetryMs }),
    ...(options.now ? { now: options.now } : {}),
  });
}

/**
 * One sentence for the package's detect reason: which UI backend runs, and the Appium server and
 * driver found or that would be started. Starts nothing.
 */
export async function describeUiBackend(options: UiBackendOptions): Promise<string> {
  const ui = options.ui ?? 'adb';
  if (ui === 'adb')
    return `UI tools through adb (uiautomator). ${await describeAppiumOption(options)}`;
  if (options.appiumUrl) {
    const answers = await appiumAnswers(options.appiumUrl);
    if (answers) return `UI tools through Appium at ${options.appiumUrl} (it answers).`;
    return ui === 'auto'
      ? `UI tools through adb: Appium at ${options.appiumUrl} does not answer.`
      : `UI tools through Appium at ${options.appiumUrl}, which does not answer now; UI calls fail until it runs.`;
  }
  const install =
    options.appiumStart === false ? 'local start is off' : findAppiumInstall(options.appiumHome);
  if (typeof install === 'string') {
    return ui === 'auto'
      ? `UI tools through adb: no Appium URL and ${install}.`
      : `UI tools through Appium, but ${install}; UI calls fail until it is installed or appiumUrl is set.`;
  }
  return `UI tools through Appium ${install.appiumVersion} with appium-uiautomator2-driver ${install.driverVersion}, started on 127.0.0.1 on first use.`;
}

const SWITCH_TO_APPIUM =
  'set packages.platform-android.ui to "appium" (or "auto": Appium while it works, else adb)';

/**
 * With the adb backend in use: whether Appium could serve the UI tools instead (its optional
 * peers installed, or `appiumUrl` answering) and how to switch to it. Starts nothing.
 */
export async function describeAppiumOption(options: UiBackendOptions): Promise<string> {
  if (options.appiumUrl) {
    return (await appiumAnswers(options.appiumUrl))
      ? `Appium at ${options.appiumUrl} answers: to use it, ${SWITCH_TO_APPIUM}.`
      : `Appium at ${options.appiumUrl} does not answer: start it, then ${SWITCH_TO_APPIUM}.`;
  }
  if (options.appiumStart === false) {
    return `Appium is not usable: no appiumUrl and appiumStart is false; to use Appium, set appiumUrl to a running server and ${SWITCH_TO_APPIUM}.`;
  }
  const install = findAppiumInstall(options.appiumHome);
  if (typeof install === 'string') return `Appium is not usable: ${install}.`;
  return `Appium ${install.appiumVersion} with appium-uiautomator2-driver ${install.driverVersion} is installed and can be used: ${SWITCH_TO_APPIUM}; it starts on 127.0.0.1 on first use.`;
}
