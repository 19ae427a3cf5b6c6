// Where search_files may run ripgrep: inside the command sandbox, from a system folder.
import { realpath } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  buildSandboxArguments,
  findExecutable,
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
  const found = await findExecutable(ripgrepPath);
  const ripgrep = found === undefined ? undefined : await realpath(found).catch(() => undefined);
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
