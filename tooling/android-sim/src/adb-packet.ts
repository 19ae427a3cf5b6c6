/** Commands of the ADB transport protocol (system/core/adb/adb.h: A_CNXN, A_OPEN …). */
export const AdbCommand = {
  CNXN: 0x4e584e43,
  AUTH: 0x48545541,
  OPEN: 0x4e45504f,
  OKAY: 0x59414b4f,
  CLSE: 0x45534c43,
  WRTE: 0x45545257,
  SYNC: 0x434e5953,
} as const;

/** The protocol version this simulator speaks (A_VERSION since adb 1.0.32: checksums skipped). */
export const ADB_VERSION = 0x01000001;

/** Header size of every transport packet. */
export const ADB_HEADER_SIZE = 24;

/** One transport packet. */
export interface AdbPacket {
  /** One of {@link AdbCommand}. */
  readonly command: number;
  readonly arg0: number;
  readonly arg1: number;
  readonly data: Buffer;
}

/** The four-letter name of a command, for messages. */
export function commandName(command: number): string {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(command >>> 0);
  return bytes.toString('latin1');
}

/** Encodes a packet: 24-byte little-endian header (command, arg0, arg1, length, checksum, magic). */
export function encodePacket(packet: AdbPacket): Buffer {
  const header = Buffer.alloc(ADB_HEADER_SIZE);
  let checksum = 0;
  for (const byte of packet.data) checksum = (checksum + byte) >>> 0;
  header.writeUInt32LE(packet.command >>> 0, 0);
  header.writeUInt32LE(packet.arg0 >>> 0, 4);
  header.writeUInt32LE(packet.arg1 >>> 0, 8);
  header.writeUInt32LE(packet.data.length, 12);
  header.writeUInt32LE(checksum, 16);
  header.writeUInt32LE((packet.command ^ 0xffffffff) >>> 0, 20);
  return Buffer.concat([header, packet.data]);
}

/**
 * Splits a byte stream into packets. Feed it chunks as they arrive; it returns every complete packet
 * and keeps the rest. Throws on a corrupt header (bad magic), which ends the connection.
 */
export class AdbPacketReader {
  #pending: Buffer = Buffer.alloc(0);

  /** Adds received bytes and returns the packets now complete. */
  push(chunk: Buffer): AdbPacket[] {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const packets: AdbPacket[] = [];
    while (this.#pending.length >= ADB_HEADER_SIZE) {
      const command = this.#pending.readUInt32LE(0);
      const magic = this.#pending.readUInt32LE(20);
      if ((command ^ 0xffffffff) >>> 0 !== magic) {
        throw new Error(`bad packet magic for command 0x${command.toString(16)}`);
      }
      const length = this.#pending.readUInt32LE(12);
      if (this.#pending.length < ADB_HEADER_SIZE + length) break;
      packets.push({
        command,
        arg0: this.#pending.readUInt32LE(4),
        arg1: this.#pending.readUInt32LE(8),
        data: Buffer.from(this.#pending.subarray(ADB_HEADER_SIZE, ADB_HEADER_SIZE + length)),
      });
      this.#pending = this.#pending.subarray(ADB_HEADER_SIZE + length);
    }
    return packets;
  }
}
