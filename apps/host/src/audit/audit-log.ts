// The audit log writer: one JSON line per call appended to today's file, off the call's path.
import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { type AuditEntry, encodeAuditLine } from './audit-entry.js';
import { auditDirectory, dayFileName, deleteExpiredDays, utcDay } from './audit-files.js';

/** Default days of audit files kept (today included). */
export const DEFAULT_AUDIT_RETAIN_DAYS = 30;

/** Default byte cap of one day file: 64 MiB. */
export const DEFAULT_AUDIT_MAX_BYTES_PER_DAY = 64 * 1024 * 1024;

/** Lines waiting to be written; past it new lines are dropped (and counted), never queued. */
const MAX_PENDING_LINES = 10_000;

/** Room kept at the end of a day file for the line that says the cap was reached. */
const CAP_NOTICE_RESERVE = 512;
/** Writes after which the day file's size is read again (other processes may append to it). */
const RESTAT_EVERY = 256;
/** Within this many bytes of the cap, the size is read before every write. */
const RESTAT_MARGIN = 256 * 1024;

/** The open day file, and its size as last read plus what was written since. */
interface OpenDayFile {
  readonly day: string;
  readonly handle: FileHandle;
  size: number;
  writes: number;
}

/** Options for {@link AuditLog}. */
export interface AuditLogOptions {
  /** The data directory; files go to `<dataDir>/audit/YYYY-MM-DD.jsonl`. */
  dataDir: string;
  /** Days of files kept, today included; older ones are deleted. Default 30. */
  retainDays?: number;
  /**
   * Byte cap of one day file (shared by every replica writing it); a call past it is not logged,
   * and one line says so. Default 64 MiB; at least 16 KiB.
   */
  maxBytesPerDay?: number;
  /** Receives a write failure, once until a write succeeds again. Default: stderr. */
  warn?: (message: string) => void;
  /** Clock in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** How the audit log fares, for `toolsys doctor` and the dashboard. */
export interface AuditLogStatus {
  /** The directory written to. */
  readonly directory: string;
  /** Lines written since start. */
  readonly written: number;
  /** Lines not written: over a day's cap, over the queue bound, or failed writes. */
  readonly dropped: number;
  /** The last write failure, until a write succeeds again. */
  readonly lastError?: string;
}

/**
 * Appends audit lines without making a call wait or fail. `append` only queues; one loop writes
 * each line with a single `write` on a file opened with `O_APPEND`, so that replicas sharing a
 * data directory never interleave parts of lines: on a local file system each such write lands
 * whole at the end of the file (POSIX `O_APPEND`; network file systems such as NFS do not promise
 * it). A day file stays under its cap (checked against its size on disk before each line, so
 * replicas together overshoot it by at most one line each).
 */
export class AuditLog {
  readonly directory: string;
  readonly #retainDays: number;
  readonly #maxBytes: number;
  readonly #warn: (message: string) => void;
  readonly #now: () => number;
  readonly #pending: { day: string; line: string }[] = [];
  #draining: Promise<void> | undefined;
  /**
   * The open day file and what is known of its size: read from the file when opened, every
   * {@link RESTAT_EVERY} writes (other processes may append too) and near the cap; counted between.
   */
  #file: OpenDayFile | undefined;
  /** Days whose cap this process reached (and said so in the file). */
  readonly #capped = new Set<string>();
  #written = 0;
  #dropped = 0;
  #lastError: string | undefined;
  #closed = false;

  constructor(options: AuditLogOptions) {
    this.directory = auditDirectory(options.dataDir);
    this.#retainDays = Math.max(1, Math.floor(options.retainDays ?? DEFAULT_AUDIT_RETAIN_DAYS));
    this.#maxBytes = Math.max(
      16 * 1024,
      Math.floor(options.maxBytesPerDay ?? DEFAULT_AUDIT_MAX_BYTES_PER_DAY),
    );
    this.#warn = options.warn ?? ((message) => process.stderr.write(`toolsys: ${message}\n`));
    this.#now = options.now ?? Date.now;
  }

  /** Queues one entry; returns at once and never throws. */
  append(entry: AuditEntry): void {
    if (this.#closed) return;
    if (this.#pending.length >= MAX_PENDING_LINES) {
      this.#dropped += 1;
      return;
    }
    try {
      this.#pending.push({ day: utcDay(Date.parse(entry.time)), line: encodeAuditLine(entry) });
    } catch {
      this.#dropped += 1;
      return;
    }
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = undefined;
    });
  }

  /** Resolves once every queued line is written (or dropped). */
  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  /** Writes what is queued, then closes the file; later entries are ignored. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    await this.#file?.handle.close().catch(() => {});
    this.#file = undefined;
  }

  /** Lines written and dropped, and the last failure. */
  status(): AuditLogStatus {
    return {
      directory: this.directory,
      written: this.#written,
      dropped: this.#dropped,
      ...(this.#lastError !== undefined ? { lastError: this.#lastError } : {}),
    };
  }

  async #drain(): Promise<void> {
    for (let next = this.#pending.shift(); next; next = this.#pending.shift()) {
      try {
        await this.#write(next.day, next.line);
        if (this.#lastError !== undefined) this.#lastError = undefined;
      } catch (error) {
        this.#dropped += 1;
        const message = `audit log: cannot write ${join(this.directory, dayFileName(next.day))} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); calls are not being audited until it can.`;
        // Said once per failure run, to the operator, never to the model.
        if (this.#lastError === undefined) this.#warn(message);
        this.#lastError = message;
        await this.#file?.handle.close().catch(() => {});
        this.#file = undefined;
      }
    }
  }

  async #write(day: string, line: string): Promise<void> {
    const file = await this.#handleFor(day);
    const { handle } = file;
    const bytes = Buffer.from(line);
    if (
      file.writes >= RESTAT_EVERY ||
      file.size + bytes.length > this.#maxBytes - CAP_NOTICE_RESERVE - RESTAT_MARGIN
    ) {
      file.size = (await handle.stat()).size;
      file.writes = 0;
    }
    const { size } = file;
    if (size + bytes.length > this.#maxBytes - CAP_NOTICE_RESERVE) {
      this.#dropped += 1;
      if (!this.#capped.has(day)) {
        this.#capped.add(day);
        const notice = Buffer.from(
          `${JSON.stringify({ time: new Date(this.#now()).toISOString(), event: 'cap-reached', maxBytesPerDay: this.#maxBytes })}\n`,
        );
        if (size + notice.length <= this.#maxBytes) await handle.write(notice);
        this.#warn(
          `audit log: ${dayFileName(day)} reached its cap of ${this.#maxBytes} bytes; further calls of that day are not logged (raise audit.maxBytesPerDay).`,
        );
      }
      return;
    }
    await handle.write(bytes);
    file.size += bytes.length;
    file.writes += 1;
    this.#written += 1;
  }

  /** The open file of `day`, opening it (and deleting expired days) when the day changes. */
  async #handleFor(day: string): Promise<OpenDayFile> {
    if (this.#file?.day === day) return this.#file;
    await this.#file?.handle.close().catch(() => {});
    this.#file = undefined;
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    // 'a' is O_APPEND | O_CREAT: every write goes to the end, whoever else appends.
    const handle = await open(join(this.directory, dayFileName(day)), 'a', 0o600);
    const file = { day, handle, size: (await handle.stat()).size, writes: 0 };
    this.#file = file;
    await deleteExpiredDays(this.directory, this.#retainDays, this.#now()).catch(() => []);
    return file;
  }
}
