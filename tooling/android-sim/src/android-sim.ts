import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import {
  ADB_VERSION,
  AdbCommand,
  type AdbPacket,
  AdbPacketReader,
  encodePacket,
} from './adb-packet.js';
import { createDefaultDeviceState, type DefaultDeviceOptions } from './default-device.js';
import type { SimDeviceState } from './device-model.js';
import type { CommandOutput } from './shell/command-output.js';
import { parseCommandLine } from './shell-words.js';
import { SimDevice } from './sim-device.js';
import { SyncSession } from './sync-session.js';
import { FakeUiAutomator2Server, UIAUTOMATOR2_DEVICE_PORT } from './uiautomator2-server.js';

/** The UiAutomator2 server's app and its instrumentation (test) package. */
const UIAUTOMATOR2_PACKAGE = 'io.appium.uiautomator2.server';
const UIAUTOMATOR2_TEST_PACKAGE = 'io.appium.uiautomator2.server.test';

/** Options for {@link AndroidSim.start}. */
export interface AndroidSimOptions {
  /** TCP port on 127.0.0.1; 0 picks a free one. Ports 5555-5585 are refused (the adb server adopts them as emulators). Default 0. */
  port?: number;
  /** The device state; default {@link createDefaultDeviceState} with `device`. */
  state?: SimDeviceState;
  /** Options for the default state. */
  device?: DefaultDeviceOptions;
  /** Largest payload the device accepts and sends per packet. Default 4096, so transfers are chunked. */
  maxPayload?: number;
  /** Features announced in the banner. Default `shell_v2,cmd,stat_v2`. */
  features?: readonly string[];
}

/** Shell protocol v2 packet ids (system/core/adb/shell_protocol.h). */
const ShellId = {
  stdin: 0,
  stdout: 1,
  stderr: 2,
  exit: 3,
  closeStdin: 4,
  windowSizeChange: 5,
} as const;

interface Stream {
  readonly localId: number;
  readonly remoteId: number;
  /** Payloads waiting for the host's OKAY (one WRTE in flight at a time). */
  readonly queue: Buffer[];
  awaitingOkay: boolean;
  closeWhenDrained: boolean;
  closed: boolean;
  onData?: (data: Buffer) => void;
  onClose?: () => void;
}

class AdbConnection {
  readonly #socket: Socket;
  readonly #sim: AndroidSim;
  readonly #reader = new AdbPacketReader();
  readonly #streams = new Map<number, Stream>();
  #maxPayload: number;
  #nextId = 1;

  constructor(socket: Socket, sim: AndroidSim) {
    this.#socket = socket;
    this.#sim = sim;
    this.#maxPayload = sim.maxPayload;
    socket.on('data', (chunk: Buffer) => {
      let packets: AdbPacket[];
      try {
        packets = this.#reader.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const packet of packets) this.#handle(packet);
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      for (const stream of this.#streams.values()) stream.onClose?.();
      this.#streams.clear();
    });
  }

  destroy(): void {
    this.#socket.destroy();
  }

  #send(command: number, arg0: number, arg1: number, data: Buffer = Buffer.alloc(0)): void {
    if (!this.#socket.destroyed) this.#socket.write(encodePacket({ command, arg0, arg1, data }));
  }

  #handle(packet: AdbPacket): void {
    switch (packet.command) {
      case AdbCommand.CNXN: {
        // The effective payload limit is the smaller of ours and the host's.
        this.#maxPayload = Math.min(this.#sim.maxPayload, packet.arg1 || this.#sim.maxPayload);
        this.#send(
          AdbCommand.CNXN,
          ADB_VERSION,
          this.#sim.maxPayload,
          Buffer.from(this.#sim.banner),
        );
        return;
      }
      case AdbCommand.OPEN:
        this.#open(packet.arg0, packet.data.toString('utf8').replace(/\0+$/, ''));
        return;
      case AdbCommand.OKAY: {
        const stream = this.#streams.get(packet.arg1);
        if (!stream) return;
        stream.awaitingOkay = false;
        this.#pump(stream);
        return;
      }
      case AdbCommand.WRTE: {
        const stream = this.#streams.get(packet.arg1);
        if (!stream) {
          this.#send(AdbCommand.CLSE, 0, packet.arg0);
          return;
        }
        this.#send(AdbCommand.OKAY, stream.localId, stream.remoteId);
        stream.onData?.(packet.data);
        return;
      }
      case AdbCommand.CLSE: {
        const stream = this.#streams.get(packet.arg1);
        if (!stream) return;
        this.#streams.delete(stream.localId);
        if (!stream.closed) {
          stream.closed = true;
          this.#send(AdbCommand.CLSE, stream.localId, stream.remoteId);
        }
        stream.onClose?.();
        return;
      }
      default:
        return;
    }
  }

  /** Queues bytes on a stream, split to the payload limit. */
  write(stream: Stream, data: Buffer): void {
    if (stream.closed) return;
    for (let offset = 0; offset < data.length; offset += this.#maxPayload) {
      stream.queue.push(data.subarray(offset, offset + this.#maxPayload));
    }
    this.#pump(stream);
  }

  /** Closes a stream once everything queued has been acknowledged. */
  end(stream: Stream): void {
    stream.closeWhenDrained = true;
    this.#pump(stream);
  }

  #pump(stream: Stream): void {
    if (stream.closed || stream.awaitingOkay) return;
    const next = stream.queue.shift();
    if (next) {
      stream.awaitingOkay = true;
      this.#send(AdbCommand.WRTE, stream.localId, stream.remoteId, next);
      return;
    }
    if (stream.closeWhenDrained) {
      stream.closed = true;
      this.#send(AdbCommand.CLSE, stream.localId, stream.remoteId);
    }
  }

  #open(remoteId: number, service: string): void {
    const stream: Stream = {
      localId: this.#nextId++,
      remoteId,
      queue: [],
      awaitingOkay: false,
      closeWhenDrained: false,
      closed: false,
    };
    const device = this.#sim.device;
    if (this.#sim.shouldStall(service)) {
      // A device that stops answering: the OPEN is never acknowledged.
      return;
    }
    if (this.#sim.shouldDrop(service)) {
      // A cable pulled mid-call: the transport dies before the service answers.
      this.#sim.disconnectAll();
      return;
    }
    const accept = () => {
      this.#streams.set(stream.localId, stream);
      this.#send(AdbCommand.OKAY, stream.localId, remoteId);
    };
    const refuse = () => this.#send(AdbCommand.CLSE, 0, remoteId);

    const shellV2 = /^shell,v2(?:,[^:]*)?:(.*)$/s.exec(service);
    if (shellV2) {
      accept();
      const packet = (id: number, data: Buffer) => {
        const header = Buffer.alloc(5);
        header[0] = id;
        header.writeUInt32LE(data.length, 1);
        return Buffer.concat([header, data]);
      };
      // stdout, stderr, then the exit code, each in its own shell v2 packet; then the stream ends.
      const reply = (output: CommandOutput) => {
        if (output.stdout.length > 0) this.write(stream, packet(ShellId.stdout, output.stdout));
        if (output.stderr.length > 0)
          this.write(stream, packet(ShellId.stderr, Buffer.from(output.stderr)));
        this.write(stream, packet(ShellId.exit, Buffer.from([output.exitCode & 0xff])));
        this.end(stream);
      };
      if (this.#runInstrumentation(shellV2[1] ?? '', stream, reply)) return;
      reply(device.run(shellV2[1] ?? ''));
      return;
    }
    const streamed = /^exec:(.*)$/s.exec(service)?.[1];
    const install = streamed === undefined ? undefined : streamedInstall(streamed);
    if (install) {
      // `adb install` with the `cmd` feature: the APK arrives on stdin, `-S SIZE` bytes of it.
      accept();
      const chunks: Buffer[] = [];
      let received = 0;
      stream.onData = (data) => {
        chunks.push(data);
        received += data.length;
        if (received < install.size) return;
        stream.onData = undefined;
        const path = `/data/local/tmp/streamed-${stream.localId}.apk`;
        device.state.files.set(path, {
          data: Buffer.concat(chunks).subarray(0, install.size),
          mode: 0o100644,
          mtime: Math.floor(device.state.now / 1000),
        });
        const output = device.run(`pm install ${install.flags.join(' ')} ${path}`);
        device.state.files.delete(path);
        this.write(stream, Buffer.from(output.stdout.toString('utf8').replace(/^\tpkg: .*\n/, '')));
        this.end(stream);
      };
      return;
    }
    const legacy = /^(shell|exec):(.*)$/s.exec(service);
    if (legacy) {
      accept();
      if (
        legacy[1] === 'shell' &&
        this.#runInstrumentation(legacy[2] ?? '', stream, (output) => {
          const bytes = Buffer.concat([output.stdout, Buffer.from(output.stderr)]);
          if (bytes.length > 0) this.write(stream, bytes);
          this.end(stream);
        })
      )
        return;
      const output = device.run(legacy[2] ?? '');
      // Without shell_v2 the legacy service merges stderr into the one stream; exec never does.
      const bytes =
        legacy[1] === 'shell'
          ? Buffer.concat([output.stdout, Buffer.from(output.stderr)])
          : output.stdout;
      if (bytes.length > 0) this.write(stream, bytes);
      this.end(stream);
      return;
    }
    if (service === 'sync:') {
      accept();
      const session = new SyncSession(device.state, {
        send: (data) => this.write(stream, data),
        end: () => this.end(stream),
      });
      stream.onData = (data) => session.push(data);
      return;
    }
    const tcp = /^tcp:(\d+)$/.exec(service);
    if (tcp) {
      const port = this.#sim.hostPortFor(Number(tcp[1]));
      if (port === undefined) {
        refuse();
        return;
      }
      const target = connect({ host: '127.0.0.1', port });
      target.once('connect', () => {
        accept();
        target.on('data', (data: Buffer) => this.write(stream, data));
        target.on('end', () => this.end(stream));
        stream.onData = (data) => target.write(data);
        stream.onClose = () => target.destroy();
      });
      target.once('error', () => {
        if (this.#streams.has(stream.localId)) this.end(stream);
        else refuse();
      });
      return;
    }
    refuse();
  }

  /**
   * Runs `am instrument` when the command is one: a long-running `-w` instrumentation keeps its
   * stream open until the instrumented package is force-stopped. Returns false for other commands.
   */
  #runInstrumentation(
    commandLine: string,
    stream: Stream,
    finish: (output: { stdout: Buffer; stderr: string; exitCode: number }) => void,
  ): boolean {
    let argv: string[];
    try {
      argv = parseCommandLine(commandLine)[0]?.argv ?? [];
    } catch {
      return false;
    }
    if (argv[0] !== 'am' || argv[1] !== 'instrument') return false;
    const wait = argv.includes('-w');
    const operands: string[] = [];
    for (let index = 2; index < argv.length; index++) {
      const arg = argv[index] as string;
      if (arg === '-e') index += 2;
      else if (!arg.startsWith('-')) operands.push(arg);
    }
    const component = operands.at(-1) ?? '';
    const [packageName = '', runner = ''] = component.split('/');
    const app = this.#sim.device.state.apps.get(packageName);
    if (!app?.instrumentation || app.instrumentation.name !== runner) {
      finish({
        stdout: Buffer.alloc(0),
        stderr: `android.util.AndroidException: INSTRUMENTATION_FAILED: ${component}\n\tat com.android.commands.am.Instrument.run(Instrument.java:519)\n`,
        exitCode: 1,
      });
      return true;
    }
    if (app.instrumentation.targetPackage !== UIAUTOMATOR2_PACKAGE) {
      finish({
        stdout: Buffer.from(
          'INSTRUMENTATION_RESULT: shortMsg=no tests\nINSTRUMENTATION_CODE: -1\n',
        ),
        stderr: '',
        exitCode: 0,
      });
      return true;
    }
    const done = () =>
      finish({
        stdout: Buffer.from(
          'INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n',
        ),
        stderr: '',
        exitCode: 0,
      });
    this.#sim.startUiAutomator2().then(
      () => {
        if (!wait) {
          finish({ stdout: Buffer.alloc(0), stderr: '', exitCode: 0 });
          return;
        }
        if (stream.closed) return;
        this.#sim.onInstrumentationEnd(done);
      },
      (error: Error) =>
        finish({ stdout: Buffer.alloc(0), stderr: `${error.message}\n`, exitCode: 1 }),
    );
    return true;
  }
}

/** The size and flags of a streamed install (`cmd package install -S SIZE …`), if the command is one. */
function streamedInstall(command: string): { size: number; flags: string[] } | undefined {
  let argv: string[];
  try {
    argv = parseCommandLine(command)[0]?.argv ?? [];
  } catch {
    return undefined;
  }
  const start = argv[0] === 'cmd' && argv[1] === 'package' ? 2 : argv[0] === 'pm' ? 1 : -1;
  if (start < 0 || argv[start] !== 'install') return undefined;
  const sizeIndex = argv.indexOf('-S');
  const size = Number(argv[sizeIndex + 1]);
  if (sizeIndex < 0 || !Number.isInteger(size) || size < 0) return undefined;
  const flags = argv
    .slice(start + 1)
    .filter((arg, index, all) => arg !== '-S' && all[index - 1] !== '-S' && arg.startsWith('-'));
  return { size, flags };
}

/**
 * A simulated Android device on 127.0.0.1 speaking the device side of the ADB transport (CNXN
 * without AUTH, OPEN/OKAY/WRTE/CLSE with one write in flight per stream, payloads chunked to the
 * negotiated maximum). Connect the real adb server to it with `adb connect 127.0.0.1:PORT`.
 */
export class AndroidSim {
  /** The scripted device behind the transport. */
  readonly device: SimDevice;
  /** Largest payload per packet. */
  readonly maxPayload: number;
  /** The CNXN banner the sim answers with. */
  readonly banner: string;
  readonly #server: Server;
  readonly #connections = new Set<AdbConnection>();
  #port = 0;
  #dropPattern: RegExp | undefined;
  #stallPattern: RegExp | undefined;
  #uiautomator2: Promise<FakeUiAutomator2Server> | undefined;
  #uiautomator2Ready: FakeUiAutomator2Server | undefined;
  readonly #instrumentationEnds = new Set<() => void>();

  private constructor(options: AndroidSimOptions, server: Server) {
    const state = options.state ?? createDefaultDeviceState(options.device);
    this.device = new SimDevice(state);
    this.maxPayload = options.maxPayload ?? 4096;
    const features = (options.features ?? ['shell_v2', 'cmd', 'stat_v2']).join(',');
    const props = state.properties;
    this.banner = `device::ro.product.name=${props['ro.product.name'] ?? 'sim'};ro.product.model=${props['ro.product.model'] ?? 'sim'};ro.product.device=${props['ro.product.device'] ?? 'sim'};features=${features}`;
    this.#server = server;
    this.device.onPackageStopped = (packageName) => {
      if (packageName === UIAUTOMATOR2_PACKAGE || packageName === UIAUTOMATOR2_TEST_PACKAGE) {
        void this.stopUiAutomator2();
      }
    };
  }

  /**
   * The fake UiAutomator2 server `am instrument` started, if it runs (its `requests` list what the
   * driver asked).
   */
  get uiautomator2(): FakeUiAutomator2Server | undefined {
    return this.#uiautomator2Ready;
  }

  /**
   * Starts the UiAutomator2 server endpoint (what `am instrument` of the server's test package
   * does on a device); a running one is kept.
   */
  startUiAutomator2(): Promise<FakeUiAutomator2Server> {
    if (!this.#uiautomator2) {
      this.device.startProcess(UIAUTOMATOR2_PACKAGE);
      const starting = FakeUiAutomator2Server.start(this.device);
      this.#uiautomator2 = starting;
      void starting.then((server) => {
        if (this.#uiautomator2 === starting) this.#uiautomator2Ready = server;
        else void server.close();
      });
    }
    return this.#uiautomator2;
  }

  /** Stops the UiAutomator2 server endpoint and ends the `am instrument -w` streams waiting on it. */
  async stopUiAutomator2(): Promise<void> {
    const running = this.#uiautomator2;
    this.#uiautomator2 = undefined;
    this.#uiautomator2Ready = undefined;
    this.device.state.processes.delete(UIAUTOMATOR2_PACKAGE);
    const ends = [...this.#instrumentationEnds];
    this.#instrumentationEnds.clear();
    for (const end of ends) end();
    if (running) await (await running).close().catch(() => undefined);
  }

  /** Registers what to do when the running instrumentation ends. */
  onInstrumentationEnd(end: () => void): void {
    this.#instrumentationEnds.add(end);
  }

  /**
   * The host port a device port forwards to: the UiAutomator2 server's device port 6790 reaches
   * the fake server while it runs (undefined, refused, when it does not); any other port is the
   * same port on 127.0.0.1.
   */
  hostPortFor(devicePort: number): number | undefined {
    if (devicePort !== UIAUTOMATOR2_DEVICE_PORT) return devicePort;
    return this.#uiautomator2Ready?.port;
  }

  /** Starts a sim listening on 127.0.0.1. */
  static async start(options: AndroidSimOptions = {}): Promise<AndroidSim> {
    const port = options.port ?? 0;
    if (port >= 5555 && port <= 5585) {
      throw new RangeError(
        `port ${port} is in 5555-5585, which the adb server adopts as emulators; pick another`,
      );
    }
    const server = createServer();
    const sim = new AndroidSim(options, server);
    server.on('connection', (socket) => {
      socket.setNoDelay(true);
      const connection = new AdbConnection(socket, sim);
      sim.#connections.add(connection);
      socket.on('close', () => sim.#connections.delete(connection));
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    sim.#port = typeof address === 'object' && address !== null ? address.port : port;
    return sim;
  }

  /** The TCP port the sim listens on. */
  get port(): number {
    return this.#port;
  }

  /** The serial the adb server gives it: `127.0.0.1:PORT`. */
  get serial(): string {
    return `127.0.0.1:${this.#port}`;
  }

  /**
   * Simulates a device lost mid-call: the next service opened whose name matches `pattern` (e.g.
   * `/dumpsys battery/`) gets no answer; the sim drops every connection instead, once.
   */
  dropOn(pattern: RegExp): void {
    this.#dropPattern = pattern;
  }

  /**
   * Simulates a device that stops answering: the next service opened whose name matches `pattern`
   * is never acknowledged (the transport stays up), once.
   */
  stallOn(pattern: RegExp): void {
    this.#stallPattern = pattern;
  }

  /** Whether a service being opened must be left unanswered (see {@link stallOn}); consumes the trigger. */
  shouldStall(service: string): boolean {
    if (!this.#stallPattern?.test(service)) return false;
    this.#stallPattern = undefined;
    return true;
  }

  /** Whether a service being opened must be dropped (see {@link dropOn}); consumes the trigger. */
  shouldDrop(service: string): boolean {
    if (!this.#dropPattern?.test(service)) return false;
    this.#dropPattern = undefined;
    return true;
  }

  /** Drops every transport connection (the adb server sees the device go offline) but keeps listening. */
  disconnectAll(): void {
    for (const connection of this.#connections) connection.destroy();
    this.#connections.clear();
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    await this.stopUiAutomator2();
    this.disconnectAll();
    if (!this.#server.listening) return;
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
