// ioredis rather than node-redis: it bounds every command itself (`commandTimeout`), fails commands
// at once while disconnected instead of queueing them (`enableOfflineQueue: false`,
// `maxRetriesPerRequest: 0`), reconnects in the background on its own schedule (`retryStrategy`),
// and loads Lua once per connection and calls it by SHA (`defineCommand`). It is imported on the
// first connection, not with this module, so importing the package loads no Redis client.
import { displayUrl } from '@toolsys/core-tool-registry/text';
import type { Redis, RedisOptions } from 'ioredis';
import { OperationTimeout } from './operation-timeout.js';

/** Whether shared state is in use, or each replica runs on its own in-process state. */
export type SharedStateMode = 'shared' | 'local';

/** The connection's state, as plain JSON for `toolsys doctor` and the dashboard. */
export interface SharedStateStatus {
  /** `shared`: Redis answers; `local`: fallen back to in-process state. */
  readonly mode: SharedStateMode;
  /** When the current mode began, ms since the epoch. */
  readonly since: number;
  /** The Redis URL, with any password replaced by `***`. */
  readonly url: string;
  /** The key prefix of every key written. */
  readonly keyPrefix: string;
  /** Why the connection fell back, while `local`. */
  readonly lastError?: string;
  /**
   * The second connection that receives invalidations (grant revocations) from other replicas,
   * present once a component subscribed: `subscribed`, or `connecting` (messages are missed
   * meanwhile; the components' own staleness bounds still apply).
   */
  readonly subscriber?: SubscriberStatus;
  /**
   * Longest time a permission grant is honoured without Redis confirming it, in ms (the status of
   * `createSharedState` only).
   */
  readonly grantMaxStalenessMs?: number;
  /** This replica's id (the status of `createSharedState` only). */
  readonly replicaId?: string;
  /**
   * The replicas alive at the last heartbeat Redis answered, this one included (the status of
   * `createSharedState` only): the divisor of every fair share while Redis is missed.
   */
  readonly liveReplicas?: readonly string[];
  /** The current bound of one Redis operation, in ms (the status of `createSharedState` only). */
  readonly operationTimeoutMs?: number;
}

/** The state of the pub/sub connection, as plain JSON. */
export interface SubscriberStatus {
  /** `subscribed`: invalidations arrive as they are published; `connecting`: they are missed. */
  readonly state: 'subscribed' | 'connecting';
  /** When the current state began, ms since the epoch. */
  readonly since: number;
  /** Why the subscriber is not subscribed, while `connecting`. */
  readonly lastError?: string;
}

/** Called with each message published on a channel this connection subscribed to. */
export type MessageListener = (message: string) => void;

/** Options for {@link RedisConnection}. */
export interface RedisConnectionOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…`. */
  url: string;
  /** Prefix of every key, so deployments can share one Redis. Default `toolsys:`. */
  keyPrefix?: string;
  /**
   * Longest wait for one Redis operation, in ms; past it the call uses local state. Default:
   * chosen from the measured round trips (see {@link OperationTimeout}), 250 ms to 1000 ms.
   */
  operationTimeoutMs?: number;
  /** Interval of the background probe (PING) while fallen back, in ms. Default 1000. */
  probeIntervalMs?: number;
  /** Wall clock for `since`. Default `Date.now`. */
  wallClock?: () => number;
  /**
   * Where an invalid value found in Redis is reported (once per key): a value no replica writes,
   * put there by something else with access. Default: a line on stderr.
   */
  warn?: (message: string) => void;
}

/** Keys reported as holding invalid values, at most; past it, reports stop. */
const MAX_REPORTED_KEYS = 1000;

/** Called when Redis answers again after a fallback: push what was recorded locally meanwhile. */
export type ResyncListener = (redis: Redis) => Promise<void> | void;

const DEFAULT_PROBE_MS = 1000;

/** Options of one {@link RedisConnection.run}. */
export interface RunOptions<T> {
  /**
   * Called with the reply of an operation that answered after its bound (the caller already
   * went on with local state), so that the caller can count it exactly once.
   */
  onLate?: (value: T) => void;
}

/** A Lua script defined on the client (EVALSHA, reloaded after a restart). */
interface ScriptDefinition {
  readonly numberOfKeys: number;
  readonly lua: string;
}

/**
 * One Redis connection with a circuit around it: every operation is bounded by
 * `operationTimeoutMs`; the first failure or timeout switches to `local` at once (callers then use
 * their in-process state and pay no Redis wait), a background probe switches back to `shared` when
 * Redis answers again, and resync listeners push what was recorded locally meanwhile.
 */
export class RedisConnection {
  /** Prefix of every key. */
  readonly keyPrefix: string;
  /** The bound of one operation, fixed or chosen from the measured round trips. */
  readonly timeout: OperationTimeout;
  #client: Redis | undefined;
  readonly #scripts = new Map<string, ScriptDefinition>();
  readonly #url: string;
  readonly #probeIntervalMs: number;
  readonly #wallClock: () => number;
  readonly #resync = new Set<ResyncListener>();
  readonly #redisOptions: RedisOptions;
  readonly #rawUrl: string;
  readonly #channels = new Map<string, Set<MessageListener>>();
  #subscriber: Redis | undefined;
  #subscriberState: SubscriberStatus['state'] = 'connecting';
  #subscriberSince = 0;
  #subscriberError: string | undefined;
  #mode: SharedStateMode = 'local';
  #since: number;
  #lastError: string | undefined = 'not connected yet';
  #probe: ReturnType<typeof setTimeout> | undefined;
  #recovering: Promise<void> | undefined;
  #closed = false;
  #opening: Promise<void>;
  #RedisClass: typeof Redis | undefined;
  readonly #warn: (message: string) => void;
  readonly #reported = new Set<string>();

  constructor(options: RedisConnectionOptions) {
    this.#warn = options.warn ?? ((message) => process.stderr.write(`toolsys: ${message}\n`));
    this.keyPrefix = options.keyPrefix ?? 'toolsys:';
    this.timeout = new OperationTimeout(
      options.operationTimeoutMs !== undefined ? { fixedMs: options.operationTimeoutMs } : {},
    );
    this.#probeIntervalMs = Math.max(10, options.probeIntervalMs ?? DEFAULT_PROBE_MS);
    this.#wallClock = options.wallClock ?? Date.now;
    this.#since = this.#wallClock();
    this.#url = displayUrl(options.url);
    const bound = this.timeout.maxMs;
    this.#redisOptions = {
      // The call's own bound is {@link run}'s timer; the client keeps waiting longer, so that a
      // late reply still reaches the caller and is counted once (see RunOptions.onLate).
      commandTimeout: Math.max(5000, bound * 10),
      connectTimeout: Math.max(500, bound * 5),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      // Reconnect in the background forever, at the probe interval; calls never wait for it.
      retryStrategy: () => this.#probeIntervalMs,
      lazyConnect: true,
    };
    this.#rawUrl = options.url;
    this.#opening = this.#open();
    this.#scheduleProbe();
  }

  /** The longest wait for one operation right now, in ms. */
  get operationTimeoutMs(): number {
    return this.timeout.currentMs();
  }

  /** The client, once ioredis is loaded (the first moments after construction it is not). */
  get redis(): Redis | undefined {
    return this.#client;
  }

  /**
   * Defines a Lua script as a command on the client (now, or when the client is created), called
   * by SHA and reloaded after a Redis restart.
   */
  defineScript(name: string, numberOfKeys: number, lua: string): void {
    if (this.#scripts.has(name)) return;
    this.#scripts.set(name, { numberOfKeys, lua });
    this.#client?.defineCommand(name, { numberOfKeys, lua });
  }

  async #open(): Promise<void> {
    let RedisClass: typeof Redis;
    try {
      ({ Redis: RedisClass } = await import('ioredis'));
    } catch (error) {
      this.#lastError = error instanceof Error ? error.message : String(error);
      return;
    }
    if (this.#closed) return;
    const client = new RedisClass(this.#rawUrl, this.#redisOptions);
    this.#RedisClass = RedisClass;
    for (const [name, script] of this.#scripts) client.defineCommand(name, script);
    // Errors surface through the failing operations; an unhandled 'error' event would crash.
    client.on('error', (error: Error) => {
      if (this.#mode === 'shared') this.#fallBack(error);
      else this.#lastError = error.message || error.name;
    });
    client.on('close', () => {
      if (this.#mode === 'shared') this.#fallBack(new Error('connection closed'));
    });
    client.on('ready', () => {
      void this.#tryRecover();
    });
    this.#client = client;
    if (this.#channels.size > 0 && !this.#subscriber) this.#subscriber = this.#openSubscriber();
    client.connect().catch(() => {
      // Reconnection continues per retryStrategy; the probe also retries.
    });
  }

  /** Whether Redis is in use now (`shared`) or calls run on local state. */
  get mode(): SharedStateMode {
    return this.#mode;
  }

  /** The connection's state for doctor and the dashboard. */
  status(): SharedStateStatus {
    return {
      mode: this.#mode,
      since: this.#since,
      url: this.#url,
      keyPrefix: this.keyPrefix,
      ...(this.#mode === 'local' && this.#lastError ? { lastError: this.#lastError } : {}),
      ...(this.#subscriber || this.#channels.size > 0
        ? {
            subscriber: {
              state: this.#subscriberState,
              since: this.#subscriberSince,
              ...(this.#subscriberState === 'connecting' && this.#subscriberError
                ? { lastError: this.#subscriberError }
                : {}),
            },
          }
        : {}),
    };
  }

  /**
   * Listens to a channel (under the key prefix) on a second connection, opened on the first
   * subscription. Subscribing never waits for Redis: the subscriber connects and reconnects in the
   * background, and messages published while it is not subscribed are lost, so a listener must
   * bound its staleness on its own. Returns the unsubscribe function.
   */
  subscribe(channel: string, listener: MessageListener): () => void {
    const name = this.key(channel);
    let listeners = this.#channels.get(name);
    if (!listeners) {
      listeners = new Set();
      this.#channels.set(name, listeners);
      if (this.#subscriber?.status === 'ready') void this.#subscribeAll(this.#subscriber);
    }
    listeners.add(listener);
    if (!this.#subscriber && !this.#closed && this.#RedisClass) {
      this.#subscriber = this.#openSubscriber();
    }
    return () => {
      listeners.delete(listener);
    };
  }

  /**
   * Reports an invalid value found at `key` (treated as absent and overwritten by the caller),
   * once per key.
   */
  reportInvalid(key: string, detail: string): void {
    if (this.#reported.has(key) || this.#reported.size >= MAX_REPORTED_KEYS) return;
    this.#reported.add(key);
    this.#warn(
      `Redis key ${key} held an invalid value (${detail}); treated as absent and overwritten. Something other than a toolsys replica writes under this key prefix.`,
    );
  }

  /** A key under the prefix. */
  key(...parts: string[]): string {
    return `${this.keyPrefix}${parts.join(':')}`;
  }

  /**
   * Runs one Redis operation, bounded by `operationTimeoutMs`. Resolves to `undefined` at once
   * while fallen back, and when the operation fails or times out (which also falls back); never
   * rejects. A reply that arrives after the bound goes to `options.onLate`.
   */
  run<T>(
    operation: (redis: Redis) => Promise<T>,
    options: RunOptions<T> = {},
  ): Promise<T | undefined> {
    const client = this.#client;
    if (this.#mode !== 'shared' || !client) return Promise.resolve(undefined);
    const boundMs = this.timeout.currentMs();
    const started = performance.now();
    return new Promise<T | undefined>((resolve) => {
      let done = false;
      const timer = setTimeout(() => {
        if (done) return;
        done = true;
        this.timeout.recordMiss();
        this.#fallBack(new Error(`no answer within ${boundMs} ms`));
        resolve(undefined);
      }, boundMs);
      timer.unref?.();
      let pending: Promise<T>;
      try {
        pending = operation(client);
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending.then(
        (value) => {
          this.timeout.record(performance.now() - started);
          if (done) {
            try {
              options.onLate?.(value);
            } catch {
              // A caller's bookkeeping must not break the connection.
            }
            return;
          }
          done = true;
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          this.#fallBack(error);
          resolve(undefined);
        },
      );
    });
  }

  /** Subscribes to "Redis is back"; returns the unsubscribe function. */
  onResync(listener: ResyncListener): () => void {
    this.#resync.add(listener);
    return () => this.#resync.delete(listener);
  }

  /**
   * Resolves once Redis answers (or `timeoutMs` after the client is loaded); true when shared.
   * For start-up and tests.
   */
  async waitUntilShared(timeoutMs = 2000): Promise<boolean> {
    // Loading the client is not Redis's answer: the wait starts once it is loaded.
    await this.#opening;
    const deadline = Date.now() + timeoutMs;
    while (this.#mode !== 'shared' && Date.now() < deadline && !this.#closed) {
      await this.#tryRecover();
      if (this.mode === 'shared') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.#mode === 'shared';
  }

  /** Stops the probe and closes the connection. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#probe) clearTimeout(this.#probe);
    this.#probe = undefined;
    await this.#opening;
    this.#client?.disconnect(false);
    this.#subscriber?.disconnect(false);
  }

  #openSubscriber(): Redis {
    const RedisClass = this.#RedisClass as typeof Redis;
    const subscriber = new RedisClass(this.#rawUrl, {
      ...this.#redisOptions,
      // Off the call path: SUBSCRIBE may take longer than one operation's bound.
      commandTimeout: Math.max(1000, this.timeout.maxMs * 10),
      autoResubscribe: false,
    });
    this.#subscriberSince = this.#wallClock();
    subscriber.on('error', (error: Error) => {
      this.#subscriberError = error.message || error.name;
    });
    subscriber.on('close', () => {
      if (this.#subscriberState === 'connecting') return;
      this.#subscriberState = 'connecting';
      this.#subscriberSince = this.#wallClock();
      this.#subscriberError = 'connection closed';
    });
    subscriber.on('ready', () => {
      void this.#subscribeAll(subscriber);
    });
    subscriber.on('message', (channel: string, message: string) => {
      for (const listener of this.#channels.get(channel) ?? []) {
        try {
          listener(message);
        } catch {
          // A listener's bug must not stop the others or the connection.
        }
      }
    });
    subscriber.connect().catch(() => {
      // Reconnection continues per retryStrategy.
    });
    return subscriber;
  }

  async #subscribeAll(subscriber: Redis): Promise<void> {
    try {
      await subscriber.subscribe(...this.#channels.keys());
      if (this.#subscriberState !== 'subscribed') {
        this.#subscriberState = 'subscribed';
        this.#subscriberSince = this.#wallClock();
        this.#subscriberError = undefined;
      }
    } catch (error) {
      this.#subscriberError = error instanceof Error ? error.message : String(error);
    }
  }

  #fallBack(error: unknown): void {
    this.#lastError = error instanceof Error ? error.message : String(error);
    if (this.#mode === 'local') return;
    this.#mode = 'local';
    this.#since = this.#wallClock();
    this.#scheduleProbe();
  }

  #scheduleProbe(): void {
    if (this.#closed || this.#probe) return;
    this.#probe = setTimeout(() => {
      this.#probe = undefined;
      if (this.#mode === 'shared' || this.#closed) return;
      void this.#tryRecover().finally(() => {
        if (this.#mode === 'local') this.#scheduleProbe();
      });
    }, this.#probeIntervalMs);
    this.#probe.unref?.();
  }

  /** Pings; on an answer in time, resyncs and switches to shared. */
  #tryRecover(): Promise<void> {
    if (this.#mode === 'shared' || this.#closed) return Promise.resolve();
    this.#recovering ??= this.#recover().finally(() => {
      this.#recovering = undefined;
    });
    return this.#recovering;
  }

  async #recover(): Promise<void> {
    const client = this.#client;
    if (client?.status !== 'ready') return;
    const bound = this.timeout.currentMs();
    const answered = await bounded(client.ping(), bound);
    if (answered !== 'PONG' || this.#closed) return;
    for (const listener of this.#resync) {
      try {
        await bounded(Promise.resolve(listener(client)), bound * 10);
      } catch {
        // A resync that fails leaves local grants local; shared state still applies from now on.
      }
    }
    this.#mode = 'shared';
    this.#since = this.#wallClock();
    this.#lastError = undefined;
  }
}

/** The value of `promise`, or undefined when it rejects or takes longer than `ms`. */
function bounded<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}

/**
 * The URL as shown: without user-info and query (see `displayUrl` of core-tool-registry).
 * @deprecated Use `displayUrl` from `@toolsys/core-tool-registry`.
 */
export function redactUrl(url: string): string {
  return displayUrl(url);
}
