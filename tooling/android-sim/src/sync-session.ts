import type { SimDeviceState } from './device-model.js';

/** Where a sync session writes its replies. */
export interface SyncSink {
  send(data: Buffer): void;
  end(): void;
}

const S_IFDIR = 0o040000;
const ENOENT = 2;
const KNOWN_DIRECTORIES = new Set([
  '/',
  '/sdcard',
  '/data',
  '/data/local',
  '/data/local/tmp',
  '/system',
]);
const MAX_DATA = 64 * 1024;

function id(name: string): Buffer {
  return Buffer.from(name, 'latin1');
}

function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value >>> 0);
  return buffer;
}

function u64(value: number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64LE(BigInt(Math.max(0, Math.floor(value))));
  return buffer;
}

/**
 * The device side of the `sync:` service (file_sync_protocol.h): STAT, STA2/LST2, LIST, RECV,
 * SEND, DONE and QUIT over the sim's file map. Requests may arrive split across any number of
 * WRTE packets.
 */
export class SyncSession {
  readonly #state: SimDeviceState;
  readonly #sink: SyncSink;
  #pending: Buffer = Buffer.alloc(0);
  #upload?: { path: string; mode: number; chunks: Buffer[] };

  constructor(state: SimDeviceState, sink: SyncSink) {
    this.#state = state;
    this.#sink = sink;
  }

  /** Feeds bytes received from the host. */
  push(data: Buffer): void {
    this.#pending = this.#pending.length === 0 ? data : Buffer.concat([this.#pending, data]);
    while (this.#pending.length >= 8) {
      const name = this.#pending.toString('latin1', 0, 4);
      const length = this.#pending.readUInt32LE(4);
      // DONE carries an mtime, not a length; QUIT carries nothing.
      const bodyLength = name === 'DONE' || name === 'QUIT' ? 0 : length;
      if (this.#pending.length < 8 + bodyLength) return;
      const body = this.#pending.subarray(8, 8 + bodyLength);
      this.#pending = this.#pending.subarray(8 + bodyLength);
      this.#handle(name, length, Buffer.from(body));
    }
  }

  #isDirectory(path: string): boolean {
    const normalized = path.length > 1 ? path.replace(/\/+$/, '') : path;
    if (KNOWN_DIRECTORIES.has(normalized)) return true;
    for (const file of this.#state.files.keys()) if (file.startsWith(`${normalized}/`)) return true;
    return false;
  }

  #handle(name: string, value: number, body: Buffer): void {
    const path = body.toString('utf8');
    switch (name) {
      case 'STAT': {
        const file = this.#state.files.get(path);
        if (file)
          this.#sink.send(
            Buffer.concat([id('STAT'), u32(file.mode), u32(file.data.length), u32(file.mtime)]),
          );
        else if (this.#isDirectory(path))
          this.#sink.send(Buffer.concat([id('STAT'), u32(S_IFDIR | 0o771), u32(4096), u32(0)]));
        else this.#sink.send(Buffer.concat([id('STAT'), u32(0), u32(0), u32(0)]));
        return;
      }
      case 'STA2':
      case 'LST2': {
        const file = this.#state.files.get(path);
        const directory = !file && this.#isDirectory(path);
        const error = file || directory ? 0 : ENOENT;
        const mode = file ? file.mode : directory ? S_IFDIR | 0o771 : 0;
        const size = file ? file.data.length : directory ? 4096 : 0;
        const mtime = file ? file.mtime : 0;
        this.#sink.send(
          Buffer.concat([
            id(name),
            u32(error),
            u64(error ? 0 : 64773),
            u64(error ? 0 : 1000 + size),
            u32(mode),
            u32(error ? 0 : 1),
            u32(error ? 0 : 2000),
            u32(error ? 0 : 1015),
            u64(size),
            u64(mtime),
            u64(mtime),
            u64(mtime),
          ]),
        );
        return;
      }
      case 'LIST': {
        const prefix = path.endsWith('/') ? path : `${path}/`;
        const seen = new Set<string>();
        for (const [filePath, file] of this.#state.files) {
          if (!filePath.startsWith(prefix)) continue;
          const rest = filePath.slice(prefix.length);
          const entry = rest.split('/')[0] as string;
          if (seen.has(entry)) continue;
          seen.add(entry);
          const isFile = rest === entry;
          const entryName = Buffer.from(entry);
          this.#sink.send(
            Buffer.concat([
              id('DENT'),
              u32(isFile ? file.mode : S_IFDIR | 0o771),
              u32(isFile ? file.data.length : 4096),
              u32(file.mtime),
              u32(entryName.length),
              entryName,
            ]),
          );
        }
        this.#sink.send(Buffer.concat([id('DONE'), Buffer.alloc(16)]));
        return;
      }
      case 'RECV': {
        const file = this.#state.files.get(path);
        if (!file) {
          const message = Buffer.from(`remote object '${path}' does not exist`);
          this.#sink.send(Buffer.concat([id('FAIL'), u32(message.length), message]));
          return;
        }
        for (let offset = 0; offset < file.data.length; offset += MAX_DATA) {
          const piece = file.data.subarray(offset, offset + MAX_DATA);
          this.#sink.send(Buffer.concat([id('DATA'), u32(piece.length), piece]));
        }
        this.#sink.send(Buffer.concat([id('DONE'), u32(0)]));
        return;
      }
      case 'SEND': {
        const comma = path.lastIndexOf(',');
        const target = comma >= 0 ? path.slice(0, comma) : path;
        const mode = comma >= 0 ? Number(path.slice(comma + 1)) : 0o644;
        this.#upload = { path: target, mode: (mode & 0o777) | 0o100000, chunks: [] };
        return;
      }
      case 'DATA':
        this.#upload?.chunks.push(body);
        return;
      case 'DONE': {
        const upload = this.#upload;
        if (!upload) return;
        this.#upload = undefined;
        const directory = upload.path.slice(0, upload.path.lastIndexOf('/')) || '/';
        if (!this.#isDirectory(directory)) {
          const message = Buffer.from(`secure_mkdirs failed: No such file or directory`);
          this.#sink.send(Buffer.concat([id('FAIL'), u32(message.length), message]));
          return;
        }
        this.#state.files.set(upload.path, {
          data: Buffer.concat(upload.chunks),
          mode: upload.mode,
          mtime: value,
        });
        this.#sink.send(Buffer.concat([id('OKAY'), u32(0)]));
        return;
      }
      case 'QUIT':
        this.#sink.end();
        return;
      default: {
        const message = Buffer.from(`unknown sync command ${JSON.stringify(name)}`);
        this.#sink.send(Buffer.concat([id('FAIL'), u32(message.length), message]));
        this.#sink.end();
      }
    }
  }
}
