import { setTimeout as delay } from 'node:timers/promises';
import {
  isKeyOfSession,
  type OffTools,
  type ToolEnvironmentState,
  ToolErrorCode,
} from '@toolsys/core-tool-registry';
import { AndroidDeviceError } from './adb-errors.js';
import type { AdbCallOptions, AndroidDevice, AndroidDeviceManager } from './android-device.js';
import { DeviceAwayNotice } from './device-away.js';
import { type DeviceTelemetry, readDeviceTelemetry, recordTelemetry } from './device-telemetry.js';
import { AdbUiBackend, type UiBackend, UiBackendChoice, type UiBackendRun } from './ui-backend.js';
import {
  readUiHierarchyInSlices,
  type UiHierarchy,
  UiHierarchyParseError,
  type UiNode,
} from './ui-hierarchy.js';
import { UiTreeCaptures } from './ui-tree-captures.js';

/** Options for {@link AndroidToolSession}. */
export interface AndroidToolSessionOptions {
  /** Chooses and reaches devices. */
  manager: AndroidDeviceManager;
  /** Environment telemetry to feed (the executor's environment gate reads it). */
  environment?: ToolEnvironmentState;
  /** Workspace root (APKs are installed only from inside it). */
  workspaceRoot: string;
  /** Where screenshots are written (`<dataDir>/android/`). */
  dataDir: string;
  /** How long to let the UI settle after an action before reading it again, in ms. Default 400. */
  settleMs?: number;
  /** Which backend the UI tools use. Default adb. */
  ui?: UiBackendChoice;
  /** The deployment registry's off tools: the tools are listed there while their device is gone. */
  off?: OffTools;
}

/** A UI hierarchy as read from a device, with the foreground app at that moment. */
export interface UiSnapshot {
  readonly serial: string;
  readonly roots: UiNode[];
  readonly telemetry: DeviceTelemetry;
  /** When it was read (ms since the epoch). */
  readonly at: number;
  /** The backend that read it. */
  readonly backend: UiBackend['name'];
  /** Nodes skipped past the parser's nesting or node bound (0 on a real screen). */
  readonly skippedNodes: number;
  /** Invisible and control characters removed from the screen's texts. */
  readonly invisibleRemoved: number;
}

/** What one client session keeps between its calls. */
export interface AndroidClientState {
  /** The trees this session's ui_dump cut into pages, per device (bounded, in memory). */
  readonly uiTreeCaptures: UiTreeCaptures;
  /** The last snapshot this session read, per device. */
  readonly lastSnapshots: Map<string, UiSnapshot>;
}

/** Client sessions whose state is kept; the one used least recently is dropped first. */
const MAX_CLIENT_SESSIONS = 64;

/**
 * What the Android tools share: device selection, telemetry into the environment state, and per
 * client session (the MCP session of the call) the last UI snapshot per device (refs from ui_dump
 * are checked against it) and the trees cut into pages (a later page is checked against them).
 * One session never sees what another kept.
 */
export class AndroidToolSession {
  readonly manager: AndroidDeviceManager;
  readonly environment: ToolEnvironmentState | undefined;
  readonly workspaceRoot: string;
  readonly dataDir: string;
  readonly settleMs: number;
  /** The UI backend choice (adb unless configured otherwise). */
  readonly ui: UiBackendChoice;
  /** Says when the device the tools use without `serial` is gone, and when it is back. */
  readonly away: DeviceAwayNotice;
  /** Per client session: what its calls kept (bounded, least recently used dropped first). */
  readonly #clients = new Map<string, AndroidClientState>();
  /** Per device: why calls of the running tool went to adb instead of Appium. */
  readonly #fallbackNotes = new Map<string, string>();

  constructor(options: AndroidToolSessionOptions) {
    this.manager = options.manager;
    this.environment = options.environment;
    this.workspaceRoot = options.workspaceRoot;
    this.dataDir = options.dataDir;
    this.settleMs = options.settleMs ?? 400;
    this.ui = options.ui ?? UiBackendChoice.fixed(new AdbUiBackend());
    this.away = new DeviceAwayNotice(options.off);
  }

  /**
   * What one owner kept (created empty on first use): `owner` is a `handleOwnerKey`, one principal
   * in one client session.
   */
  client(owner: string): AndroidClientState {
    let state = this.#clients.get(owner);
    if (state) {
      // Most recently used last, so the first key is the one to drop.
      this.#clients.delete(owner);
    } else {
      state = { uiTreeCaptures: new UiTreeCaptures(), lastSnapshots: new Map() };
    }
    this.#clients.set(owner, state);
    while (this.#clients.size > MAX_CLIENT_SESSIONS) {
      const oldest = this.#clients.keys().next().value as string;
      this.#clients.delete(oldest);
    }
    return state;
  }

  /** Forgets what every principal kept in the client session `sessionId` (snapshots, cut pages). */
  endSession(sessionId: string): void {
    for (const key of [...this.#clients.keys()]) {
      if (isKeyOfSession(key, sessionId)) this.#clients.delete(key);
    }
  }

  /** The backend the UI tools use now. */
  async uiBackend(): Promise<UiBackend> {
    return this.ui.get();
  }

  /**
   * Runs one UI backend call for a device. When `ui: "auto"` sends it to adb because Appium is
   * unusable, the reason is kept for the device until {@link takeFallbackNote}.
   */
  async withUiBackend<T>(
    serial: string,
    call: (backend: UiBackend) => Promise<T>,
  ): Promise<UiBackendRun<T>> {
    const run = await this.ui.run(call);
    if (run.note) this.#fallbackNotes.set(serial, run.note);
    return run;
  }

  /** Returns and forgets the note of the latest fallback to adb on a device, if any. */
  takeFallbackNote(serial: string): string | undefined {
    const note = this.#fallbackNotes.get(serial);
    this.#fallbackNotes.delete(serial);
    return note;
  }

  /** Reads telemetry and records it in the environment state. */
  async telemetry(device: AndroidDevice, options: AdbCallOptions = {}): Promise<DeviceTelemetry> {
    const telemetry = await readDeviceTelemetry(device, options);
    recordTelemetry(this.environment, telemetry);
    return telemetry;
  }

  /** Waits for the UI to settle after an action. */
  async settle(signal?: AbortSignal): Promise<void> {
    if (this.settleMs > 0) await delay(this.settleMs, undefined, signal ? { signal } : undefined);
  }

  /**
   * Dumps the UI hierarchy through the UI backend (`uiautomator dump` on adb, the page source on
   * Appium), with telemetry over adb, kept as the client session's last snapshot. Fails with an actionable error when the screen is off or
   * the dump fails.
   */
  async snapshot(
    device: AndroidDevice,
    owner: string,
    options: AdbCallOptions = {},
  ): Promise<UiSnapshot> {
    const telemetry = await this.telemetry(device, options);
    if (telemetry.screenOn === false) {
      throw new AndroidDeviceError(
        ToolErrorCode.UNSUPPORTED,
        'The device screen is off, so there is no UI to read.',
        {
          hint: 'Turn the screen on (power button on the device), then retry.',
        },
      );
    }
    const { value: output, backend } = await this.withUiBackend(device.serial, async (ui) => {
      let read = '';
      for (let attempt = 1; attempt <= 2; attempt++) {
        read = await ui.readHierarchy(device, options);
        if (read.includes('<hierarchy')) break;
        // uiautomator refuses while another dump or an idle-wait runs; one retry covers that.
        await delay(300, undefined, options.signal ? { signal: options.signal } : undefined);
      }
      return read;
    });
    let parsed: UiHierarchy;
    try {
      // In slices: a dump of up to the byte bound never holds up the other sessions.
      parsed = await readUiHierarchyInSlices(output);
    } catch (error) {
      if (!(error instanceof UiHierarchyParseError)) throw error;
      throw new AndroidDeviceError(
        ToolErrorCode.EXECUTION_FAILED,
        `${backend === 'adb' ? 'uiautomator' : 'Appium'} could not dump the screen: ${output.trim().split('\n')[0] ?? 'no output'}`,
        {
          hint: 'Wait a second (animations or another UI automation can block it) and retry ui_dump.',
        },
      );
    }
    const snapshot: UiSnapshot = {
      serial: device.serial,
      roots: parsed.roots,
      telemetry,
      at: Date.now(),
      backend,
      skippedNodes: parsed.skippedNodes,
      invisibleRemoved: parsed.invisibleRemoved,
    };
    this.client(owner).lastSnapshots.set(device.serial, snapshot);
    return snapshot;
  }

  /** The last snapshot `owner` (a `handleOwnerKey`) read from a device (ui_dump or an action). */
  lastSnapshot(serial: string, owner: string): UiSnapshot | undefined {
    return this.#clients.get(owner)?.lastSnapshots.get(serial);
  }
}
