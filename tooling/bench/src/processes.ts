import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

/** The repository root, for the host CLI and its working directory. */
export const REPO_ROOT = resolve(import.meta.dirname, '../../..');
const HOST_CLI = join(REPO_ROOT, 'apps/host/src/cli.ts');

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
    [
      '--conditions=@toolsys/source',
      '--import',
      'tsx',
      HOST_CLI,
      'serve',
      '--http',
      '--port',
      '0',
      '--config',
      config,
    ],
    {
      cwd: join(REPO_ROOT, 'apps/host'),
      env: { ...process.env, INIT_CWD: scratch },
      stdio: 'pipe',
    },
  );
  const match = await waitForOutput(child, /MCP \(Streamable HTTP\): (\S+)/, what, timeoutMs);
  return { child, url: match[1] as string };
}
