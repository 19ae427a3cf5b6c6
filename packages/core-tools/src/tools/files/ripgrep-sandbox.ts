// Where search_files may run ripgrep: inside the command sandbox, from a system folder.
import { constants } from 'node:fs';
import { access, realpath } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import {
  buildSandboxArguments,
  probeCommandSandbox,
  type WorkspacePath,
  withWorkspaceEntry,
} from '@toolsys/platform';

/**
 * The sandbox ripgrep runs in for a search of `target`, or undefined when there is none or when
 * ripgrep lives outside the system folders the sandbox shows.
 */
export async function ripgrepSandbox(
  ripgrepPath: string,
  target: WorkspacePath,
): Promise<{ ripgrep: string; sandbox: { executable: string; arguments: string[] } } | undefined> {
  const status = await probeCommandSandbox();
  if (!status.available || status.executable === undefined) return undefined;
  const ripgrep = await findExecutable(ripgrepPath);
  if (ripgrep === undefined || !/^\/(?:usr|bin|sbin)\//.test(ripgrep)) return undefined;
  const stats = await withWorkspaceEntry(target, (entry) => entry.handle.stat());
  const folder = stats.isDirectory() ? target.absolute : dirname(target.absolute);
  return {
    ripgrep,
    sandbox: {
      executable: status.executable,
      arguments: await buildSandboxArguments({
        workspaceRoot: target.root,
        cwd: folder,
        executable: status.executable,
      }),
    },
  };
}

async function findExecutable(name: string): Promise<string | undefined> {
  if (name.includes('/')) return realpath(name).catch(() => undefined);
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, name);
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    ) {
      return realpath(candidate).catch(() => undefined);
    }
  }
  return undefined;
}
