import type { Duplex } from 'node:stream';
import type adbkit from '@devicefarmer/adbkit';
import { ToolErrorCode } from '@toolsys/core-tool-registry';
import { AndroidDeviceError, DeviceGoneError, transportError } from './adb-errors.js';

type AdbStatic = typeof adbkit.Adb;
type AdbClient = ReturnType<AdbStatic['createClient']>;

/** adbkit, imported on the first adb call: importing this package must not load it. */
async function loadAdb(): Promise<AdbStatic> {
  const module = (await import('@devicefarmer/adbkit')).default;
  // Node's ESM loader gives the CommonJS exports object as the default import; bundlers that
  // honour `__esModule` give its `default` (the Adb class) instead. Accept both.
  return 'createClient' in module ? (module as unknown as AdbStatic) : module.Adb;
}
type AdbDeviceClient = ReturnType<AdbClient['getDevice']>;

/** Options of one adb call. */
export interface AdbCallOptions {
  /** Ends the call when it fires. */
  signal?: AbortSignal;
  /** Longest the call may take, in ms. Default: the manager's `commandTimeoutMs`. */
  timeoutMs?: number;
  /**
   * Most bytes read from the device for this call; past it reading stops, the stream is closed
   * and the cut is recorded in {@link AndroidDevice.cutOutputs}. Default: the manager's
   * `maxOutputBytes`.
   */
  maxBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 20_000;

/** Default bound on the bytes one device command may return (8 MiB; real UI dumps are < 1 MiB). */
export const DEFAULT_MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

/** A device output cut at its byte bound. */
export interface CutOutput {
  /** The command line whose output was cut. */
  readonly command: string;
  /** The bound it reached, in bytes. */
  readonly maxBytes: number;
}

function timeoutError(serial: string, timeoutMs: number): AndroidDeviceError {
  return new AndroidDeviceError(
    ToolErrorCode.TIMEOUT,
    `Device ${serial} did not answer within ${timeoutMs} ms.`,
    { hint: 'The device may be busy or disconnected; check it with get_device_info, then retry.' },
  );
}

/**
 * Runs `work` under a deadline and the caller's signal: whichever comes first settles the result,
 * and `release` (set by `work`, e.g. destroying a socket) is called so nothing keeps running.
 */
async function withDeadline<T>(
  serial: string,
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
  work: (onRelease: (release: () => void) => void) => Promise<T>,
): Promise<T> {
  options.signal?.throwIfAborted();
  let release: (() => void) | undefined;
  let settled = false;
  return await new Promise<T>((resolve, reject) => {
    const finish = (outcome: { value: T } | { error: unknown }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if ('error' in outcome) {
        release?.();
        reject(outcome.error);
      } else {
        resolve(outcome.value);
      }
    };
    const onAbort = () => finish({ error: options.signal?.reason ?? new Error('aborted') });
    const timer = setTimeout(
      () => finish({ error: timeoutError(serial, options.timeoutMs) }),
      options.timeoutMs,
    );
    options.signal?.addEventListener('abort', onAbort, { once: true });
    work((callback) => {
      release = callback;
      if (settled) callback();
    }).then(
      (value) => finish({ value }),
      (error: unknown) => finish({ error }),
    );
  });
}

/**
 * Collects a stream into one buffer of at most `maxBytes`: past it the stream is destroyed (the
 * device stops sending) and `cut` is set.
 */
async function readAll(stream: Duplex, maxBytes: number): Promise<{ bytes: Buffer; cut: boolean }> {
  return await new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      if (size + chunk.length <= maxBytes) {
        chunks.push(chunk);
        size += chunk.length;
        return;
      }
      chunks.push(chunk.subarray(0, maxBytes - size));
      stream.off('data', onData);
      stream.destroy();
      resolve({ bytes: Buffer.concat(chunks), cut: true });
    };
    stream.on('data', onData);
    stream.once('end', () => resolve({ bytes: Buffer.concat(chunks), cut: false }));
    stream.once('error', reject);
  });
}

/**
 * One Android device reached through the adb server (via @devicefarmer/adbkit). Every method
 * either resolves or rejects with an {@link AndroidDeviceError}; none hangs past its time limit.
 */
export class AndroidDevice {
  /** The adb serial (`emulator-5554`, `R58M…`, `127.0.0.1:40123`). */
  readonly serial: string;
  /** Outputs cut at their byte bound by this handle (one handle serves one tool call). */
  readonly cutOutputs: CutOutput[] = [];
  readonly #device: AdbDeviceClient;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;

  constructor(
    client: AdbClient,
    serial: string,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    maxBytes = DEFAULT_MAX_OUTPUT_BYTES,
  ) {
    this.serial = serial;
    this.#device = client.getDevice(serial);
    this.#timeoutMs = timeoutMs;
    this.#maxBytes = maxBytes;
  }

  /**
   * Runs a shell command line and returns its output as bytes (stdout and stderr merged, as the
   * legacy `shell:` service gives them), at most `maxBytes` of it (see {@link cutOutputs}).
   */
  async shellBuffer(command: string, options: AdbCallOptions = {}): Promise<Buffer> {
    try {
      const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
      const maxBytes = options.maxBytes ?? this.#maxBytes;
      const { bytes, cut } = await withDeadline(
        this.serial,
        { timeoutMs, signal: options.signal },
        async (onRelease) => {
          // Opening the stream is under the deadline too: a device that stops answering never OKAYs.
          const stream = await this.#device.shell(command);
          onRelease(() => stream.destroy());
          return await readAll(stream, maxBytes);
        },
      );
      if (cut) this.cutOutputs.push({ command, maxBytes });
      return bytes;
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw transportError(this.serial, error);
    }
  }

  /** Runs a shell command line and returns its output as UTF-8 text. */
  async shell(command: string, options: AdbCallOptions = {}): Promise<string> {
    return (await this.shellBuffer(command, options)).toString('utf8');
  }

  /** Copies a local file (or stream) to the device through the sync service. */
  async push(
    contents: string | NodeJS.ReadableStream,
    remotePath: string,
    options: AdbCallOptions = {},
  ): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 120_000;
    try {
      await withDeadline(this.serial, { timeoutMs, signal: options.signal }, async (onRelease) => {
        const transfer = await this.#device.push(contents as string, remotePath);
        onRelease(() => transfer.cancel());
        await new Promise<void>((resolve, reject) => {
          transfer.once('end', () => resolve());
          transfer.once('error', (error: unknown) => reject(error));
        });
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw transportError(this.serial, error);
    }
  }
}

/** A device as the adb server lists it. */
export interface ListedDevice {
  readonly serial: string;
  /** `device`, `offline`, `unauthorized`, `emulator` … as adb says. */
  readonly state: string;
}

/** Options for {@link AndroidDeviceManager}. */
export interface AndroidDeviceManagerOptions {
  /** The serial to use; without it the only online device is used. */
  serial?: string;
  /** Port of the adb server on 127.0.0.1. Default ANDROID_ADB_SERVER_PORT, else 5037. */
  adbServerPort?: number;
  /** Host of the adb server. Default 127.0.0.1. */
  adbServerHost?: string;
  /** The adb binary adbkit starts the server with when none runs. Default `adb`. */
  adbPath?: string;
  /** Time limit of one adb command unless the tool sets its own, in ms. Default 20 000. */
  commandTimeoutMs?: number;
  /**
   * Most bytes read from one device command unless the tool sets its own bound; past it reading
   * stops and the result says so. Default 8 MiB.
   */
  maxOutputBytes?: number;
}

/**
 * Chooses the device the tools act on and hands out {@link AndroidDevice}s: the configured serial,
 * else the only online device, else an error listing what is attached.
 */
export class AndroidDeviceManager {
  readonly #clientOptions: { host: string; port: number; bin: string };
  #client: Promise<AdbClient> | undefined;
  readonly #serial: string | undefined;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;

  constructor(options: AndroidDeviceManagerOptions = {}) {
    this.#serial = options.serial;
    this.#timeoutMs = options.commandTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.#clientOptions = {
      host: options.adbServerHost ?? '127.0.0.1',
      port: options.adbServerPort ?? 5037,
      bin: options.adbPath ?? 'adb',
    };
  }

  /** The adbkit client, created on first use. */
  #adb(): Promise<AdbClient> {
    this.#client ??= loadAdb().then((Adb) => Adb.createClient(this.#clientOptions));
    return this.#client;
  }

  /** The configured serial, if any. */
  get configuredSerial(): string | undefined {
    return this.#serial;
  }

  /** Devices the adb server knows, with their states. */
  async listDevices(signal?: AbortSignal): Promise<ListedDevice[]> {
    try {
      // Loading adbkit is this process's own work: it does not count against the adb deadline.
      const client = await this.#adb();
      const devices = await withDeadline(
        'the adb server',
        { timeoutMs: this.#timeoutMs, signal },
        () => Promise.resolve(client.listDevices()),
      );
      return devices.map((device: { id: string; type: string }) => ({
        serial: device.id,
        state: device.type,
      }));
    } catch (error) {
      if (signal?.aborted) throw error;
      throw transportError('the adb server', error);
    }
  }

  /**
   * The device to act on. `serial` (a tool argument) wins over the configured one. Fails with
   * NOT_FOUND / INVALID_ARGUMENT naming the attached devices, and with a {@link DeviceGoneError}
   * when the device used without `serial` (the configured one, else the only one) is not there.
   */
  async select(serial?: string, signal?: AbortSignal): Promise<AndroidDevice> {
    const wanted = serial ?? this.#serial;
    const devices = await this.listDevices(signal);
    const listing =
      devices.map((device) => `${device.serial} (${device.state})`).join(', ') || 'none';
    if (wanted !== undefined) {
      const found = devices.find((device) => device.serial === wanted);
      if (!found && serial === undefined) {
        throw new DeviceGoneError(
          `configured device ${wanted} is not attached (attached: ${listing})`,
          {
            devices,
          },
        );
      }
      if (!found) {
        throw new AndroidDeviceError(
          ToolErrorCode.NOT_FOUND,
          `Device ${wanted} is not attached. Attached: ${listing}.`,
          {
            hint: 'Connect it (USB or `adb connect HOST:PORT`), or choose one of the attached serials.',
            field: 'serial',
            details: { devices },
          },
        );
      }
      if (found.state !== 'device' && found.state !== 'emulator') {
        throw new AndroidDeviceError(
          ToolErrorCode.EXECUTION_FAILED,
          `Device ${wanted} is ${found.state}, not online.`,
          {
            hint:
              found.state === 'unauthorized'
                ? 'Accept the USB debugging prompt on the device, then retry.'
                : 'Wait a few seconds for it to come back (or reconnect it), then retry.',
            details: { devices },
          },
        );
      }
      return new AndroidDevice(await this.#adb(), wanted, this.#timeoutMs, this.#maxBytes);
    }
    const online = devices.filter(
      (device) => device.state === 'device' || device.state === 'emulator',
    );
    if (online.length === 1)
      return new AndroidDevice(
        await this.#adb(),
        (online[0] as ListedDevice).serial,
        this.#timeoutMs,
        this.#maxBytes,
      );
    if (online.length === 0) {
      throw new DeviceGoneError(`no Android device is online (attached: ${listing})`, { devices });
    }
    throw new AndroidDeviceError(
      ToolErrorCode.INVALID_ARGUMENT,
      `Several devices are online (${listing}); say which one.`,
      {
        hint: `Pass "serial" with one of: ${online.map((device) => device.serial).join(', ')} (or set packages.platform-android.serial).`,
        field: 'serial',
        details: { devices },
      },
    );
  }
}
