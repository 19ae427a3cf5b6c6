import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { chmod, link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResolvedDeploymentConfig } from './config.js';

/** The environment variable holding the deployment key unless `server.deploymentKeyEnv` names another. */
export const DEPLOYMENT_KEY_ENV = 'TOOLSYS_DEPLOYMENT_KEY';

/** The file under the data directory that holds a generated key when none is configured. */
export const DEPLOYMENT_KEY_FILE = 'deployment.key';

/** Bytes a deployment key must have at least (256 bits). */
const MIN_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Why {@link DeploymentKey.open} refused a sealed value. */
export type UnsealFailure = 'malformed' | 'tampered' | 'expired';

/** What {@link DeploymentKey.open} found. */
export type Unsealed<T> =
  | { readonly ok: true; readonly payload: T; readonly expiresAt: number }
  | { readonly ok: false; readonly reason: UnsealFailure };

/** A deployment key that cannot be used; the message says how to give a good one. */
export class DeploymentKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeploymentKeyError';
  }
}

/**
 * The one secret every replica of a deployment shares: it keys the digests that must not be
 * guessable (audit arguments) and seals what the server hands a client to bring back later (a
 * 2026-07-28 `requestState`), so any replica can verify what another issued. Each use names a
 * purpose and gets its own subkey (HKDF-SHA256), so a value made for one purpose is never
 * accepted for another.
 */
export class DeploymentKey {
  readonly #secret: Buffer;
  readonly #subkeys = new Map<string, Buffer>();

  private constructor(secret: Buffer) {
    this.#secret = secret;
  }

  /** A fresh random key. */
  static generate(): DeploymentKey {
    return new DeploymentKey(randomBytes(MIN_KEY_BYTES));
  }

  /**
   * A key from its text form: base64, base64url or hex of at least 32 bytes (`openssl rand
   * -base64 32` makes one). Throws {@link DeploymentKeyError} naming `source` otherwise.
   */
  static parse(text: string, source: string): DeploymentKey {
    const trimmed = text.trim();
    const bytes =
      /^[0-9a-fA-F]+$/.test(trimmed) && trimmed.length % 2 === 0
        ? Buffer.from(trimmed, 'hex')
        : /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)
          ? Buffer.from(trimmed, 'base64')
          : undefined;
    if (!bytes || bytes.length < MIN_KEY_BYTES) {
      throw new DeploymentKeyError(
        `${source} is not a usable deployment key: it must be base64 or hex of at least ${MIN_KEY_BYTES} random bytes (make one with \`openssl rand -base64 32\`).`,
      );
    }
    return new DeploymentKey(bytes);
  }

  /** The text form {@link parse} reads (base64). */
  export(): string {
    return this.#secret.toString('base64');
  }

  /** `HMAC-SHA256(subkey(purpose), data)`, base64url: equal inputs give equal MACs on every replica. */
  mac(purpose: string, data: string | Uint8Array): string {
    return createHmac('sha256', this.#subkey(purpose)).update(data).digest('base64url');
  }

  /** Whether `mac` is {@link mac} of `data` for `purpose` (constant time). */
  verify(purpose: string, data: string | Uint8Array, mac: string): boolean {
    const expected = Buffer.from(this.mac(purpose, data), 'base64url');
    const given = Buffer.from(mac, 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /**
   * Seals `payload` (any JSON value) for `purpose` until `ttlMs` from `now`: encrypted and
   * authenticated (AES-256-GCM with the purpose as associated data), base64url. Only a holder of
   * the key can read or forge it.
   */
  seal(purpose: string, payload: unknown, ttlMs: number, now = Date.now()): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#subkey(purpose), iv);
    cipher.setAAD(Buffer.from(purpose));
    const plain = Buffer.from(JSON.stringify({ exp: now + ttlMs, payload }));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** Opens what {@link seal} made for `purpose`: refused when malformed, altered or expired. */
  open<T = unknown>(purpose: string, sealed: string, now = Date.now()): Unsealed<T> {
    if (typeof sealed !== 'string' || !/^[A-Za-z0-9_-]+$/.test(sealed)) {
      return { ok: false, reason: 'malformed' };
    }
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return { ok: false, reason: 'malformed' };
    let plain: Buffer;
    try {
      const decipher = createDecipheriv(
        'aes-256-gcm',
        this.#subkey(purpose),
        bytes.subarray(0, IV_BYTES),
      );
      decipher.setAAD(Buffer.from(purpose));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      plain = Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      return { ok: false, reason: 'tampered' };
    }
    const { exp, payload } = JSON.parse(plain.toString('utf8')) as { exp: number; payload: T };
    if (!(now < exp)) return { ok: false, reason: 'expired' };
    return { ok: true, payload, expiresAt: exp };
  }

  #subkey(purpose: string): Buffer {
    let key = this.#subkeys.get(purpose);
    if (!key) {
      key = Buffer.from(
        hkdfSync('sha256', this.#secret, Buffer.alloc(0), `toolsys/${purpose}`, 32),
      );
      this.#subkeys.set(purpose, key);
    }
    return key;
  }
}

/**
 * The deployment's key: the environment variable `server.deploymentKeyEnv` names (default
 * `TOOLSYS_DEPLOYMENT_KEY`) when set — replicas must share it — else the key in
 * `<dataDir>/deployment.key`, generated (mode 0600) on first use. Two processes starting at once
 * agree on one key: each writes its own file whole and links it into place, so the one that
 * loses reads the winner's complete key, never a half-written file.
 */
export async function loadDeploymentKey(config: ResolvedDeploymentConfig): Promise<DeploymentKey> {
  const env = config.env ?? process.env;
  const envName = config.config.server?.deploymentKeyEnv ?? DEPLOYMENT_KEY_ENV;
  const fromEnv = env[envName];
  if (fromEnv !== undefined && fromEnv !== '') return DeploymentKey.parse(fromEnv, `$${envName}`);
  const file = join(config.dataDir, DEPLOYMENT_KEY_FILE);
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const fresh = DeploymentKey.generate();
  const own = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(own, `${fresh.export()}\n`, { flag: 'wx', mode: 0o600 });
  try {
    await link(own, file);
    return fresh;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(own, { force: true });
  }
  // Written by an older run (or a process that started beside this one): never left readable.
  await chmod(file, 0o600);
  return DeploymentKey.parse(await readFile(file, 'utf8'), file);
}
