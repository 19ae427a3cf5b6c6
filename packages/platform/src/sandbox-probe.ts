/**
 * The sandbox probe: whether `bwrap` is installed and can start a sandbox here, asked once per
 * process, with a reason `toolsys doctor` can show.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { buildSandboxArguments, SANDBOX_PATH } from './command-sandbox.js';
import { findExecutable } from './find-executable.js';

/** Whether commands can run inside the OS sandbox, and why not when they cannot. */
export interface CommandSandboxStatus {
  /** True when `bwrap` was found and a probe command ran inside it. */
  available: boolean;
  /** One sentence: what was found, or why the sandbox cannot start and what to install. */
  reason: string;
  /** The `bwrap` executable used, when found. */
  executable?: string;
}

/** Options for {@link probeCommandSandbox}. */
export interface ProbeCommandSandboxOptions {
  /** The `bwrap` executable. Default: `bwrap` found on PATH. */
  executable?: string;
  /** Run the probe again instead of returning the cached answer. Default false. */
  refresh?: boolean;
}

const probes = new Map<string, Promise<CommandSandboxStatus>>();

function runProbe(executable: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    let output = '';
    let errors = '';
    const child = spawn(executable, [...args, '/bin/sh', '-c', 'echo sandbox-ok'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: SANDBOX_PATH },
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0 && output.trim() === 'sandbox-ok') resolve(undefined);
      else resolve(errors.trim().split('\n')[0] || `exit code ${code}`);
    });
  });
}

/**
 * Checks once per process whether commands can run in the OS sandbox: finds `bwrap` and runs a
 * probe command inside the same namespaces and mounts real calls use. The answer says why not
 * (not installed, no permission for namespaces …) so that `toolsys doctor` can show it. Without
 * the sandbox, `shell_execute` asks before every command.
 */
export function probeCommandSandbox(
  options: ProbeCommandSandboxOptions = {},
): Promise<CommandSandboxStatus> {
  const key = options.executable ?? '';
  const cached = probes.get(key);
  if (cached !== undefined && options.refresh !== true) return cached;
  const probe = (async (): Promise<CommandSandboxStatus> => {
    if (process.platform !== 'linux') {
      return { available: false, reason: 'the command sandbox (bubblewrap) needs Linux' };
    }
    const executable = options.executable ?? (await findExecutable('bwrap'));
    if (
      options.executable !== undefined &&
      !(await access(options.executable, constants.X_OK).then(
        () => true,
        () => false,
      ))
    ) {
      return {
        available: false,
        reason: `bubblewrap was configured at ${options.executable}, but nothing executable is there`,
      };
    }
    if (executable === undefined) {
      return {
        available: false,
        reason:
          'bubblewrap (bwrap) is not installed: install the "bubblewrap" package so that read-only commands can run without asking',
      };
    }
    const root = await realpath(tmpdir());
    const args = await buildSandboxArguments({ workspaceRoot: root, cwd: root, executable });
    const failure = await runProbe(executable, args);
    if (failure !== undefined) {
      return {
        available: false,
        executable,
        reason: `bubblewrap is installed but cannot start a sandbox here (${failure}); allow unprivileged user namespaces or run as a user that may create them`,
      };
    }
    return {
      available: true,
      executable,
      reason: 'bubblewrap runs read-only commands without network in their own PID namespace',
    };
  })();
  probes.set(key, probe);
  return probe;
}
