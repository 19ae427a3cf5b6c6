// Opening a URL in the user's browser where one exists; never an error where none does.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The opener program of this platform found on `PATH`, if any. */
export function findOpener(
  env: NodeJS.ProcessEnv,
  platform = process.platform,
): string | undefined {
  const name = platform === 'darwin' ? 'open' : platform === 'win32' ? undefined : 'xdg-open';
  if (name === undefined) return undefined;
  for (const directory of (env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/**
 * Opens `url` with the platform's opener (no shell; the URL is one argument). Returns whether one
 * was started; a failure to start is not an error (the URL is printed anyway).
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv): boolean {
  // The URL comes from the authorization server's metadata: only a web page is opened, never a
  // file or another scheme's handler.
  if (!/^https?:$/.test(safeProtocol(url))) return false;
  const opener = findOpener(env);
  if (opener === undefined) return false;
  try {
    const child = spawn(opener, [url], { detached: true, stdio: 'ignore', env });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}
