// Tools an operator allowed always for every principal at run time (`toolsys grant --everyone`).
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RedisConnection } from '@toolsys/state-redis';

/** The file the grants are kept in without Redis, under the data directory. */
export const EVERYONE_GRANTS_FILE = join('grants', 'everyone.json');

/** How often the kept grants are read again, at most, in ms. */
const REFRESH_MS = 1_000;

/** Options for {@link EveryoneGrants}. */
export interface EveryoneGrantsOptions {
  /** The data directory: without Redis the grants are `<dataDir>/grants/everyone.json`. */
  readonly dataDir: string;
  /** The deployment's Redis (`state.redis`): the grants are then one set there, for every replica. */
  readonly connection?: RedisConnection;
  /** Clock in ms since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * The tools an operator allowed always for every principal at run time, kept in the deployment's
 * state store: a Redis set when `state.redis` is configured (every replica reads it), else a file
 * in the data directory (`toolsys grant` and `toolsys serve` share it). `has` answers from what was
 * read last and reads again at most once a second, so a grant or a revocation reaches a running
 * server within about a second; it never waits on the store.
 */
export class EveryoneGrants {
  readonly #file: string;
  readonly #connection: RedisConnection | undefined;
  readonly #now: () => number;
  #tools = new Set<string>();
  #readAt = Number.NEGATIVE_INFINITY;
  #fileStamp = '';
  #reading: Promise<void> | undefined;

  constructor(options: EveryoneGrantsOptions) {
    this.#file = join(options.dataDir, EVERYONE_GRANTS_FILE);
    this.#connection = options.connection;
    this.#now = options.now ?? Date.now;
  }

  /** Whether `toolId` is allowed always for everyone (as of the last read). */
  has(toolId: string): boolean {
    if (this.#now() - this.#readAt >= REFRESH_MS) this.#refresh();
    return this.#tools.has(toolId);
  }

  /** The tools allowed for everyone, sorted, read from the store now. */
  async list(): Promise<string[]> {
    await this.#read();
    return [...this.#tools].sort();
  }

  /** Allows `toolId` always for everyone. */
  async grant(toolId: string): Promise<void> {
    await this.#change(toolId, true);
  }

  /** Takes an operator's grant of `toolId` for everyone back; returns whether there was one. */
  async revoke(toolId: string): Promise<boolean> {
    return await this.#change(toolId, false);
  }

  async #change(toolId: string, allow: boolean): Promise<boolean> {
    const connection = this.#connection;
    if (connection) {
      const key = connection.key('perm', 'everyone');
      const changed = await connection.run((redis) =>
        allow ? redis.sadd(key, toolId) : redis.srem(key, toolId),
      );
      if (changed === undefined) {
        throw new Error('Redis (state.redis) did not answer; nothing was changed. Try again.');
      }
      await this.#read();
      return changed === 1;
    }
    const tools = this.#readFile();
    const had = tools.has(toolId);
    if (allow) tools.add(toolId);
    else tools.delete(toolId);
    mkdirSync(join(this.#file, '..'), { recursive: true });
    const temporary = `${this.#file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify({ tools: [...tools].sort() }, null, 2)}\n`, {
      mode: 0o600,
    });
    renameSync(temporary, this.#file);
    await this.#read();
    return had;
  }

  #refresh(): void {
    this.#readAt = this.#now();
    if (this.#connection) {
      this.#reading ??= this.#read().finally(() => {
        this.#reading = undefined;
      });
      return;
    }
    // A file that has not changed since it was read is not read again.
    const stamp = statStamp(this.#file);
    if (stamp === this.#fileStamp) return;
    this.#fileStamp = stamp;
    this.#tools = this.#readFile();
  }

  async #read(): Promise<void> {
    this.#readAt = this.#now();
    const connection = this.#connection;
    if (!connection) {
      this.#fileStamp = statStamp(this.#file);
      this.#tools = this.#readFile();
      return;
    }
    const members = await connection.run((redis) =>
      redis.smembers(connection.key('perm', 'everyone')),
    );
    // Redis away: the grants last read stay (a revocation made meanwhile arrives when it is back).
    if (members !== undefined) this.#tools = new Set(members);
  }

  /** The file's tools; a missing or unreadable file holds none. */
  #readFile(): Set<string> {
    try {
      const parsed = JSON.parse(readFileSync(this.#file, 'utf8')) as { tools?: unknown };
      return new Set(
        Array.isArray(parsed.tools)
          ? parsed.tools.filter((tool): tool is string => typeof tool === 'string')
          : [],
      );
    } catch {
      return new Set();
    }
  }
}

/** The file's size and modification time, or '' when it is missing. */
function statStamp(file: string): string {
  try {
    const info = statSync(file);
    return `${info.size}:${info.mtimeMs}`;
  } catch {
    return '';
  }
}
