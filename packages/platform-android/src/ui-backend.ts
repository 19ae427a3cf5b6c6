import type { AdbCallOptions, AndroidDevice } from './android-device.js';
import { quoteShell } from './shell-quote.js';
import type { UiNode } from './ui-hierarchy.js';

/** Which backend drives the UI tools. */
export type UiBackendName = 'adb' | 'appium';

/** A point on the screen, in pixels. */
export interface ScreenPoint {
  readonly x: number;
  readonly y: number;
}

/** What a tap targets: a node of the latest snapshot (with its centre), or a bare point. */
export interface TapTarget {
  /** The node, when the tap was aimed at one; backends that act on elements use it. */
  readonly node?: UiNode;
  /** All nodes of the snapshot the node comes from (for locator uniqueness). */
  readonly roots?: readonly UiNode[];
  /** Where to tap. */
  readonly point: ScreenPoint;
  /** Hold for about 600 ms. */
  readonly longPress?: boolean;
}

/**
 * How the UI tools read and act on a device's screen. `ui_dump`, `ui_tap`, `ui_swipe`,
 * `input_text` and `screenshot` go through one; the app and device tools always use adb.
 * Expected failures throw {@link AndroidDeviceError} (turned into results by the device tools).
 */
export interface UiBackend {
  /** The backend's name, reported in results. */
  readonly name: UiBackendName;
  /** The hierarchy XML (uiautomator dump or UiAutomator2 page source) of the current screen. */
  readHierarchy(device: AndroidDevice, options: AdbCallOptions): Promise<string>;
  /** Taps; returns an error line when the device refused, else undefined. */
  tap(
    device: AndroidDevice,
    target: TapTarget,
    options: AdbCallOptions,
  ): Promise<string | undefined>;
  /** Swipes from one point to another; returns an error line when the device refused. */
  swipe(
    device: AndroidDevice,
    from: ScreenPoint,
    to: ScreenPoint,
    durationMs: number,
    options: AdbCallOptions,
  ): Promise<string | undefined>;
  /**
   * Types any text (Unicode included) into `field` through the backend itself and returns the
   * method used. Backends without it leave typing to the adb paths of input_text.
   */
  typeText?(
    device: AndroidDevice,
    field: UiNode,
    roots: readonly UiNode[],
    text: string,
    options: AdbCallOptions & { clear?: boolean },
  ): Promise<string>;
  /** A PNG of the screen. */
  screenshot(device: AndroidDevice, options: AdbCallOptions): Promise<Buffer>;
  /** Stops what the backend started (sessions, servers). */
  dispose(): Promise<void>;
}

/** Most bytes of one UI dump (real screens dump well under 1 MiB; the parser keeps 20 000 nodes). */
export const MAX_DUMP_BYTES = 2 * 1024 * 1024;

/** Most bytes of one screenshot (a 4K screen's PNG is well under it). */
export const MAX_SCREENSHOT_BYTES = 32 * 1024 * 1024;

/** The UI through adb: `uiautomator dump`, `input tap/swipe`, `screencap`. */
export class AdbUiBackend implements UiBackend {
  readonly name = 'adb' as const;

  async readHierarchy(device: AndroidDevice, options: AdbCallOptions): Promise<string> {
    const path = '/sdcard/window_dump.xml';
    return device.shell(`uiautomator dump ${path} 2>&1 && cat ${path}`, {
      ...options,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxBytes: Math.min(options.maxBytes ?? MAX_DUMP_BYTES, MAX_DUMP_BYTES),
    });
  }

  async tap(
    device: AndroidDevice,
    target: TapTarget,
    options: AdbCallOptions,
  ): Promise<string | undefined> {
    const { x, y } = target.point;
    const command = target.longPress
      ? `input swipe ${x} ${y} ${x} ${y} 600`
      : `input tap ${x} ${y}`;
    const output = await device.shell(command, options);
    return /Error|Exception/.test(output) ? output.trim().split('\n')[0] : undefined;
  }

  async swipe(
    device: AndroidDevice,
    from: ScreenPoint,
    to: ScreenPoint,
    durationMs: number,
    options: AdbCallOptions,
  ): Promise<string | undefined> {
    const output = await device.shell(
      `input swipe ${from.x} ${from.y} ${to.x} ${to.y} ${quoteShell(String(durationMs))}`,
      options,
    );
    return /Error|Exception/.test(output) ? output.trim().split('\n')[0] : undefined;
  }

  async screenshot(device: AndroidDevice, options: AdbCallOptions): Promise<Buffer> {
    return device.shellBuffer('screencap -p', {
      ...options,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxBytes: options.maxBytes ?? MAX_SCREENSHOT_BYTES,
    });
  }

  async dispose(): Promise<void> {}
}

/** What one UI backend call gave, and which backend ran it. */
export interface UiBackendRun<T> {
  readonly value: T;
  /** The backend that ran the call. */
  readonly backend: UiBackendName;
  /** Set when the call ran through adb because Appium was not usable: says why, for the result. */
  readonly note?: string;
}

/** Picks the UI backend: a fixed one, or one built on first use. */
export class UiBackendChoice {
  readonly #pick: () => Promise<UiBackend>;
  #chosen: Promise<UiBackend> | undefined;
  #backends: UiBackend[] = [];

  /** @param pick Builds the backend on first use (called once). */
  constructor(pick: () => Promise<UiBackend>) {
    this.#pick = pick;
  }

  /** Always the given backend. */
  static fixed(backend: UiBackend): UiBackendChoice {
    return new UiBackendChoice(async () => backend);
  }

  /** The backend, chosen on the first call. */
  async get(): Promise<UiBackend> {
    this.#chosen ??= this.#pick().then((backend) => {
      this.#backends.push(backend);
      return backend;
    });
    return this.#chosen;
  }

  /** Runs one backend call on the backend {@link get} gives. */
  async run<T>(call: (backend: UiBackend) => Promise<T>): Promise<UiBackendRun<T>> {
    const backend = await this.get();
    return { value: await call(backend), backend: backend.name };
  }

  /** Disposes the chosen backend, if one was chosen. */
  async dispose(): Promise<void> {
    const backends = this.#backends;
    this.#backends = [];
    this.#chosen = undefined;
    await Promise.all(backends.map((backend) => backend.dispose()));
  }
}
