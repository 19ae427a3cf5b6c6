import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@toolsys/test-support';

/** The folder holding the registry's pinned package.json and package-lock.json. */
const manifestDir = join(import.meta.dirname, '..', 'verdaccio');

/** A running Verdaccio on 127.0.0.1, started by {@link startVerdaccio}. */
export interface RunningRegistry {
  /** The registry URL, with a trailing slash (`http://127.0.0.1:PORT/`). */
  readonly url: string;
  /** The `host:port` part npm uses as the key of an auth token (`//127.0.0.1:PORT/`). */
  readonly authKey: string;
  /** The Verdaccio process id. */
  readonly pid: number;
  /** What Verdaccio printed so far (its log level is `warn`). */
  output(): string;
  /** Stops Verdaccio by its pid: SIGTERM, then SIGKILL after `graceMs` (default 5 s). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Installs the pinned Verdaccio with `npm ci` into `cacheRoot` (once per lockfile: a later call
 * with the same lockfile reuses it) and returns the path of its `bin/verdaccio`.
 */
export function installVerdaccio(cacheRoot: string, options: { timeoutMs: number }): string {
  const lock = readFileSync(join(manifestDir, 'package-lock.json'));
  const stamp = createHash('sha256').update(lock).digest('hex').slice(0, 16);
  const dir = join(cacheRoot, `verdaccio-${stamp}`);
  const bin = join(dir, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  const done = join(dir, '.installed');
  if (existsSync(done) && existsSync(bin)) return bin;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) {
    copyFileSync(join(manifestDir, file), join(dir, file));
  }
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: options.timeoutMs,
    killSignal: 'SIGKILL',
  });
  writeFileSync(done, `${new Date().toISOString()}\n`);
  return bin;
}

/**
 * The Verdaccio configuration: `@toolsys/*` is served only from local storage (no uplink), anyone
 * may read, and a registered user may publish. Everything else is refused, since nothing proxies:
 * third-party packages come from the normal registry through a scoped registry setting.
 */
export function verdaccioConfig(options: { storage: string; htpasswd: string }): string {
  return [
    `storage: ${JSON.stringify(options.storage)}`,
    'auth:',
    '  htpasswd:',
    `    file: ${JSON.stringify(options.htpasswd)}`,
    '    max_users: 10',
    'uplinks: {}',
    'packages:',
    "  '@toolsys/*':",
    '    access: $all',
    '    publish: $authenticated',
    '    unpublish: $authenticated',
    "  '**':",
    '    access: $all',
    '    publish: $authenticated',
    'web:',
    '  enable: false',
    'max_body_size: 100mb',
    'log: { type: stdout, format: pretty, level: warn }',
    '',
  ].join('\n');
}

/**
 * Starts Verdaccio from `bin` on 127.0.0.1 with a fresh storage in `workDir`, and waits until
 * `/-/ping` answers (at most `readyTimeoutMs`).
 */
export async function startVerdaccio(options: {
  bin: string;
  workDir: string;
  readyTimeoutMs: number;
}): Promise<RunningRegistry> {
  mkdirSync(options.workDir, { recursive: true });
  const configFile = join(options.workDir, 'config.yaml');
  writeFileSync(
    configFile,
    verdaccioConfig({
      storage: join(options.workDir, 'storage'),
      htpasswd: join(options.workDir, 'htpasswd'),
    }),
  );
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [options.bin, '--config', configFile, '--listen', `127.0.0.1:${port}`],
    { cwd: options.workDir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output = `${output}${chunk.toString('utf8')}`.slice(-64 * 1024);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  if (child.pid === undefined) throw new Error(`Verdaccio did not start: ${output}`);
  const registry: RunningRegistry = {
    url: `http://127.0.0.1:${port}/`,
    authKey: `//127.0.0.1:${port}/`,
    pid: child.pid,
    output: () => output,
    stop: (graceMs = 5_000) => stopChild(child, exited, graceMs),
  };
  const deadline = Date.now() + options.readyTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`Verdaccio exited (${child.exitCode ?? child.signalCode}): ${output}`);
    }
    try {
      const response = await fetch(`${registry.url}-/ping`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return registry;
    } catch {
      // Not listening yet.
    }
    await new Promise((wake) => setTimeout(wake, 200));
  }
  await registry.stop();
  throw new Error(
    `Verdaccio did not answer on ${registry.url} within ${options.readyTimeoutMs} ms: ${output}`,
  );
}

/** Stops one child by its own pid, escalating to SIGKILL after `graceMs`. */
async function stopChild(child: ChildProcess, exited: Promise<void>, graceMs: number) {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      process.kill(child.pid, 'SIGKILL');
    }
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Registers `name` with the registry the way `npm adduser` does (`PUT /-/user/org.couchdb.user:…`)
 * and returns the bearer token it answers with.
 */
export async function addRegistryUser(registry: RunningRegistry, name: string): Promise<string> {
  const password = createHash('sha256')
    .update(`${name}:${registry.url}:${Date.now()}`)
    .digest('hex');
  const response = await fetch(
    `${registry.url}-/user/org.couchdb.user:${encodeURIComponent(name)}`,
    {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, password, email: `${name}@example.invalid`, type: 'user' }),
    },
  );
  const body = (await response.json()) as { token?: string; error?: string };
  if (!response.ok || typeof body.token !== 'string') {
    throw new Error(`adding user ${name} failed: HTTP ${response.status} ${JSON.stringify(body)}`);
  }
  return body.token;
}
