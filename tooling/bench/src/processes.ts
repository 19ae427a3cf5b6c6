import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The repository root, for the host CLI and its working directory. */
export const REPO_ROOT = resolve(import.meta.dirname, '../../..');
/** The host package, the working directory of its CLI. */
export const HOST_DIR = join(REPO_ROOT, 'apps/host');
/** Node arguments that run a workspace entry from its TypeScript sources. */
export const SOURCE_NODE_ARGS: readonly string[] = [
  '--conditions=@toolsys/source',
  '--import',
  'tsx',
];

/** Node arguments that run the host CLI from source with `args` (e.g. `serve --stdio`). */
export function hostCliArgs(...args: string[]): string[] {
  return [...SOURCE_NODE_ARGS, join(HOST_DIR, 'src/cli.ts'), ...args];
}

/**
 * Like {@link hostCliArgs}, with the TypeScript loader named by its file URL, so that the host runs
 * from source in any working directory (a bare `tsx` resolves from the working directory).
 */
export function hostCliArgsAnywhere(...args: string[]): string[] {
  const tsx = createRequire(join(REPO_ROOT, 'package.json')).resolve('tsx');
  return [
    '--conditions=@toolsys/source',
    '--import',
    pathToFileURL(tsx).href,
    join(HOST_DIR, 'src/cli.ts'),
    ...args,
  ];
}

/**
 * Waits (`timeoutMs`, default 60 s) until a child prints a line matching `pattern` on stdout or
 * stderr, then keeps its pipes drained; rejects when it exits first.
 */
export function waitForOutput(
  child: ChildProcess,
  pattern: RegExp,
  what: string,
  timeoutMs = 60_000,
): Promise<RegExpExecArray> {
  return new Promise((resolveMatch, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`${what} did not start in ${timeoutMs / 1000} s: ${seen}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolveMatch(match);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}: ${seen}`));
    });
  });
}

/** Starts `toolsys serve --http --port 0` with a config file; resolves with it and its MCP URL. */
export async function startHostHttp(
  config: string,
  scratch: string,
  what: string,
  timeoutMs = 60_000,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    hostCliArgs('serve', '--http', '--port', '0', '--config', config),
    { cwd: HOST_DIR, env: { ...process.env, INIT_CWD: scratch }, stdio: 'pipe' },
  );
  const match = await waitForOutput(child, /MCP \(Streamable HTTP\): (\S+)/, what, timeoutMs);
  return { child, url: match[1] as string };
}
