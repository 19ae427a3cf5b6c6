// ioredis rather than node-redis: it bounds every command itself (`commandTimeout`), fails commands
// at once while disconnected instead of queueing them (`enableOfflineQueue: false`,
// `maxRetriesPerRequest: 0`), reconnects in the background on its own schedule (`retryStrategy`),
// and loads Lua once per connection and calls it by SHA (`defineCommand`).
import { Redis, type RedisOptions } from 'ioredis';

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
  /** Longest wait for one Redis operation, in ms; past it the call uses local state. Default 100. */
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

const DEFAULT_TIMEOUT_MS = 100;
const DEFAULT_PROBE_MS = 1000;

/**
 * One Redis connection with a circuit around it: every operation is bounded by
 * `operationTimeoutMs`; the first failure or timeout switches to `local` at once (callers then use
 * their in-process state and pay no Redis wait), a background probe switches back to `shared` when
 * Redis answers again, and resync listeners push what was recorded locally meanwhile.
 */
export class RedisConnection {
  /** The client. Use {@link run} for bounded operations. */
  readonly redis: Redis;
  /** Prefix of every key. */
  readonly keyPrefix: string;
  /** Longest wait for one operation, in ms. */
  readonly operationTimeoutMs: number;
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
  readonly #warn: (message: string) => void;
  readonly #reported = new Set<string>();

  constructor(options: RedisConnectionOptions) {
    this.#warn = options.warn ?? ((message) => process.stderr.write(`toolsys: ${message}\n`));
    this.keyPrefix = options.keyPrefix ?? 'toolsys:';
    this.operationTimeoutMs = Math.max(1, options.operationTimeoutMs ?? DEFAULT_TIMEOUT_MS);
    this.#probeIntervalMs = Math.max(10, options.probeIntervalMs ?? DEFAULT_PROBE_MS);
    this.#wallClock = options.wallClock ?? Date.now;
    this.#since = this.#wallClock();
    this.#url = redactUrl(options.url);
    const redisOptions: RedisOptions = {
      commandTimeout: this.operationTimeoutMs,
      connectTimeout: Math.max(500, this.operationTimeoutMs * 5),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      // Reconnect in the background forever, at the probe interval; calls never wait for it.
      retryStrategy: () => this.#probeIntervalMs,
      lazyConnect: true,
    };
    this.#redisOptions = redisOptions;
    this.#rawUrl = options.url;
    this.redis = new Redis(options.url, redisOptions);
    // Errors surface through the failing operations; an unhandled 'error' event would crash.
    this.redis.on('error', (error: Error) => {
      if (this.#mode === 'shared') this.#fallBack(error);
      else this.#lastError = error.message || error.name;
    });
    this.redis.on('close', () => {
      if (this.#mode === 'shared') this.#fallBack(new Error('connection closed'));
    });
    this.redis.on('ready', () => {
      void this.#tryRecover();
    });
    this.redis.connect().catch(() => {
      // Reconnection continues per retryStrategy; the probe also retries.
    });
    this.#scheduleProbe();
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
      ...(this.#subscriber
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
    if (!this.#subscriber && !this.#closed) this.#subscriber = this.#openSubscriber();
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
   * rejects.
   */
  run<T>(operation: (redis: Redis) => Promise<T>): Promise<T | undefined> {
    if (this.#mode !== 'shared') return Promise.resolve(undefined);
    return new Promise<T | undefined>((resolve) => {
      let done = false;
      const timer = setTimeout(() => {
        if (done) return;
        done = true;
        this.#fallBack(new Error(`no answer within ${this.operationTimeoutMs} ms`));
        resolve(undefined);
      }, this.operationTimeoutMs);
      timer.unref?.();
      let pending: Promise<T>;
      try {
        pending = operation(this.redis);
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending.then(
        (value) => {
          if (done) return;
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

  /** Resolves once Redis answers (or after `timeoutMs`); true when shared. For start-up and tests. */
  async waitUntilShared(timeoutMs = 2000): Promise<boolean> {
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
    this.redis.disconnect(false);
    this.#subscriber?.disconnect(false);
  }

  #openSubscriber(): Redis {
    const subscriber = new Redis(this.#rawUrl, {
      ...this.#redisOptions,
      // Off the call path: SUBSCRIBE may take longer than one operation's bound.
      commandTimeout: Math.max(1000, this.operationTimeoutMs * 10),
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
    if (this.redis.status !== 'ready') return;
    const answered = await bounded(this.redis.ping(), this.operationTimeoutMs);
    if (answered !== 'PONG' || this.#closed) return;
    for (const listener of this.#resync) {
      try {
        await bounded(Promise.resolve(listener(this.redis)), this.operationTimeoutMs * 10);
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

/** The URL with its password (if any) replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis://(unparsable url)';
  }
}
