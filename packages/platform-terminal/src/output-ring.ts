/** What {@link OutputRing.read} returns: the bytes after a cursor that are still held. */
export interface RingRead {
  /** The bytes, in order; at most the requested maximum. */
  readonly data: Buffer;
  /** Absolute offset of the first byte returned (after any dropped bytes). */
  readonly from: number;
  /** Cursor to pass to the next read: the offset just after the last byte returned. */
  readonly next: number;
  /** Bytes between the requested cursor and `from` that the ring no longer holds. */
  readonly dropped: number;
  /** Bytes held after `next` that this read left for a later one (the maximum was reached). */
  readonly pending: number;
}

/**
 * A bounded ring of raw output addressed by absolute byte offsets. Offsets grow forever; the ring
 * keeps the last `capacity` bytes. A read from a cursor never repeats or skips a byte: what was
 * overwritten before the read is reported as `dropped`.
 */
export class OutputRing {
  private readonly buffer: Buffer;
  private written = 0;

  /** @param capacity Bytes kept (at least 1). */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`ring capacity must be a positive integer, got ${capacity}`);
    }
    this.buffer = Buffer.alloc(capacity);
  }

  /** Offset just after the last byte ever written (the cursor of "now"). */
  get end(): number {
    return this.written;
  }

  /** Offset of the oldest byte still held. */
  get start(): number {
    return Math.max(0, this.written - this.capacity);
  }

  /** Appends bytes; the oldest are overwritten once the ring is full. */
  append(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const bytes =
      chunk.length > this.capacity ? chunk.subarray(chunk.length - this.capacity) : chunk;
    const skipped = chunk.length - bytes.length;
    let position = (this.written + skipped) % this.capacity;
    let offset = 0;
    while (offset < bytes.length) {
      const take = Math.min(bytes.length - offset, this.capacity - position);
      bytes.copy(this.buffer, position, offset, offset + take);
      offset += take;
      position = (position + take) % this.capacity;
    }
    this.written += chunk.length;
  }

  /**
   * Reads up to `maxBytes` from `cursor`. A cursor past the end reads nothing; a negative or
   * fractional cursor is a programmer error.
   */
  read(cursor: number, maxBytes = Number.POSITIVE_INFINITY): RingRead {
    if (!Number.isInteger(cursor) || cursor < 0) {
      throw new RangeError(`cursor must be a non-negative integer, got ${cursor}`);
    }
    const from = Math.min(Math.max(cursor, this.start), this.written);
    const dropped = Math.max(0, Math.min(this.start, this.written) - cursor);
    const available = this.written - from;
    const length = Math.max(0, Math.min(available, maxBytes));
    const data = Buffer.alloc(length);
    let position = from % this.capacity;
    let copied = 0;
    while (copied < length) {
      const take = Math.min(length - copied, this.capacity - position);
      this.buffer.copy(data, copied, position, position + take);
      copied += take;
      position = (position + take) % this.capacity;
    }
    return { data, from, next: from + length, dropped, pending: available - length };
  }
}
