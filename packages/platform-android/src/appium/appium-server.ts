import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** Where Appium and the UiAutomator2 driver are installed, as a local server would run them. */
export interface AppiumInstall {
  /** Appium's entry script (`appium/index.js`). */
  readonly appiumMain: string;
  readonly appiumVersion: string;
  /** APPIUM_HOME: a package dir whose dependencies include the driver. */
  readonly appiumHome: string;
  readonly driverVersion: string;
}

/** This package's own folder: its optional dependencies are Appium and the UiAutomator2 driver. */
export function defaultAppiumHome(): string {
  // src/appium/ and dist/appium/ are both two levels below the package folder.
  return fileURLToPath(new URL('../..', import.meta.url));
}

function readVersion(packageJson: string): string {
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version?: string }).version ?? '?';
}

/**
 * Finds Appium and the UiAutomator2 driver under `appiumHome` (default: this package's folder,
 * where this repository installs both for its tests; a published install does not carry them, as
 * they weigh hundreds of MB). Returns a sentence saying what is missing and how to install it.
 */
export function findAppiumInstall(appiumHome = defaultAppiumHome()): AppiumInstall | string {
  // Appium looks for drivers in APPIUM_HOME/node_modules only, so this looks nowhere else either.
  const packageJson = (name: string) => join(appiumHome, 'node_modules', name, 'package.json');
  const appiumJson = packageJson('appium');
  if (!existsSync(appiumJson)) {
    return `Appium is not installed under ${appiumHome} (run \`npm install appium@3.8.0 appium-uiautomator2-driver@8.7.0\` in a folder and set packages.platform-android.appiumHome to it, or set appiumUrl)`;
  }
  const driverJson = packageJson('appium-uiautomator2-driver');
  if (!existsSync(driverJson)) {
    return `the UiAutomator2 driver is not installed under ${appiumHome} (run \`npm install appium-uiautomator2-driver@8.7.0\` there)`;
  }
  return {
    appiumMain: join(dirname(realpathSync(appiumJson)), 'index.js'),
    appiumVersion: readVersion(appiumJson),
    appiumHome,
    driverVersion: readVersion(driverJson),
  };
}

/**
 * The Android SDK folder appium-adb needs (ANDROID_HOME), from the environment or from where the
 * adb binary lives (`<sdk>/platform-tools/adb`).
 */
export function findAndroidHome(adbPath: string, env: NodeJS.ProcessEnv): string | undefined {
  if (env.ANDROID_HOME) return env.ANDROID_HOME;
  if (env.ANDROID_SDK_ROOT) return env.ANDROID_SDK_ROOT;
  const candidates = isAbsolute(adbPath)
    ? [adbPath]
    : (env.PATH ?? '').split(delimiter).map((folder) => join(folder, adbPath));
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    const real = realpathSync(candidate);
    if (dirname(real).endsWith('platform-tools')) return dirname(dirname(real));
  }
  return undefined;
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Options for {@link LocalAppiumServer}. */
export interface LocalAppiumServerOptions {
  /** APPIUM_HOME; default this package's folder. */
  appiumHome?: string;
  /** Port on 127.0.0.1; 0 (default) picks a free one at each start. */
  port?: number;
  /** The adb binary (its SDK folder becomes ANDROID_HOME when that is unset). Default `adb`. */
  adbPath?: string;
  /** Environment for the server. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** How long to wait for the server to answer /status, in ms. Default 60000. */
  startTimeoutMs?: number;
}

/**
 * An Appium server this process starts on 127.0.0.1 with the UiAutomator2 driver from npm, on
 * first use; started again if it died; stopped by its pid on {@link stop}.
 */
export class LocalAppiumServer {
  readonly #options: LocalAppiumServerOptions;
  #child: ChildProcess | undefined;
  #url: string | undefined;
  #starting: Promise<string> | undefined;

  constructor(options: LocalAppiumServerOptions = {}) {
    this.#options = options;
  }

  get #running(): ChildProcess | undefined {
    const child = this.#child;
    return child && child.exitCode === null && child.signalCode === null ? child : undefined;
  }

  /** The server's URL while it runs. */
  get url(): string | undefined {
    return this.#running ? this.#url : undefined;
  }

  /** The pid of the running server, if any. */
  get pid(): number | undefined {
    return this.#running?.pid;
  }

  /** The running server's URL, starting it first when it is not running. */
  async ensure(): Promise<string> {
    const url = this.url;
    if (url) return url;
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(): Promise<string> {
    const install = findAppiumInstall(this.#options.appiumHome);
    if (typeof install === 'string') throw new Error(install);
    const env: NodeJS.ProcessEnv = {
      ...(this.#options.env ?? process.env),
      APPIUM_HOME: install.appiumHome,
    };
    const androidHome = findAndroidHome(this.#options.adbPath ?? 'adb', env);
    if (androidHome) env.ANDROID_HOME = androidHome;
    const port = this.#options.port || (await freePort());
    const child = spawn(
      process.execPath,
      [
        install.appiumMain,
        '--address',
        '127.0.0.1',
        '--port',
        String(port),
        '--log-level',
        'error',
      ],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2_000);
    });
    this.#child = child;
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + (this.#options.startTimeoutMs ?? 60_000);
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `Appium exited at start (code ${child.exitCode ?? child.signalCode}): ${stderr.trim().split('\n').slice(-3).join(' ') || 'no output'}`,
        );
      }
      try {
        const response = await fetch(`${url}/status`, { signal: AbortSignal.timeout(2_000) });
        if (response.ok) {
          this.#url = url;
          return url;
        }
      } catch {
        // Not listening yet.
      }
      await delay(250);
    }
    await this.stop();
    throw new Error(`Appium did not answer on ${url} within the start timeout`);
  }

  /** Stops the server (SIGTERM, then SIGKILL after 5 s) by its pid. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    this.#url = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
