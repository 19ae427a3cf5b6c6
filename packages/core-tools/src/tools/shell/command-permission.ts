// Whether shell_execute may run a command: refused, run unasked inside the OS sandbox, or asked
// first; and the environment it then starts with.
import {
  approvedEnvironment,
  buildSandboxArguments,
  type CommandVerdict,
  classifyCommand,
  prepareGitWrapper,
  probeCommandSandbox,
  sandboxEnvironment,
  type WorkspacePath,
} from '@toolsys/platform';
import type { ShellToolsOptions } from './shared.js';

/** How a command launches inside the OS sandbox. */
export interface CommandSandbox {
  executable: string;
  arguments: string[];
}

/** The verdict on one command, and the sandbox it runs in when it runs unasked. */
export interface CommandPermission {
  verdict: CommandVerdict;
  /** Set exactly when the verdict is `allow`. */
  sandbox: CommandSandbox | undefined;
}

/**
 * Classifies `command` run in `cwd`. A read-only command runs unasked only inside a working OS
 * sandbox; without one its verdict becomes `confirm`.
 */
export async function decideCommandPermission(request: {
  command: string;
  cwd: WorkspacePath;
  options: ShellToolsOptions;
}): Promise<CommandPermission> {
  const { command, cwd, options } = request;
  const verdict = await classifyCommand(command, {
    ...(options.allowCommands === undefined ? {} : { allowCommands: options.allowCommands }),
    ...(options.denyCommands === undefined ? {} : { denyCommands: options.denyCommands }),
    ...(options.useAllowList === undefined ? {} : { useAllowList: options.useAllowList }),
    workspaceRoot: cwd.root,
    cwd: cwd.absolute,
  });
  if (verdict.kind !== 'allow') return { verdict, sandbox: undefined };
  const status =
    options.sandbox === 'off'
      ? { available: false, reason: 'the command sandbox is turned off' }
      : await probeCommandSandbox(
          options.sandboxExecutable === undefined ? {} : { executable: options.sandboxExecutable },
        );
  if (status.available && status.executable !== undefined) {
    return {
      verdict,
      sandbox: {
        executable: status.executable,
        arguments: await buildSandboxArguments({
          workspaceRoot: cwd.root,
          cwd: cwd.absolute,
          executable: status.executable,
          gitWrapper: await prepareGitWrapper(),
          environment: options.environment ?? process.env,
        }),
      },
    };
  }
  return {
    verdict: {
      kind: 'confirm',
      reason: `${verdict.reason}, but no OS sandbox is available to run it unasked: ${status.reason}`,
    },
    sandbox: undefined,
  };
}

/**
 * The environment a command starts with. A sandboxed command gets an allow-list of variables,
 * never the host's environment; one run after asking gets the approved allow-list unless
 * `scrubEnvironment` is false.
 */
export function commandEnvironment(
  options: ShellToolsOptions,
  sandboxed: boolean,
): Record<string, string> {
  const base = options.environment ?? process.env;
  if (sandboxed) return sandboxEnvironment(base);
  if (options.scrubEnvironment === false) {
    return Object.fromEntries(
      Object.entries(base).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
  }
  return approvedEnvironment(base, { pass: options.passEnvironment ?? [] });
}
