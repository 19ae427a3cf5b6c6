// What the session tools share: their options, the `sandbox` argument and opening a session
// (terminal.run opens one too).
import { failureResult, type HandleOwner, ToolErrorCode } from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { RootfsManager } from '../../rootfs-manager.js';
import { SessionCreateError, type TerminalManager } from '../../terminal-manager.js';
import type { TerminalSession } from '../../terminal-session.js';
import { resolveSessionDirectory } from '../tool-support.js';

/** Options for `createSessionTools`, which builds the session tools. */
export interface SessionToolsOptions {
  /** The sessions the tools act on. */
  readonly manager: TerminalManager;
  /** The rootfs behind the `proot` backend; undefined when the deployment has none. */
  readonly rootfs?: RootfsManager;
  /** Environment used to look for shells and programs. Default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

const FIRST_PROMPT_WAIT_MS = 5_000;

/** The `sandbox` argument of the tools that open a session; its default follows the deployment. */
export function sandboxArgument(manager: TerminalManager) {
  const required = manager.sandboxMode === 'required';
  return z
    .boolean()
    .default(required)
    .describe(
      `OS sandbox (no network, workspace read-only); input runs without asking.${required ? ' Required here.' : ''}`,
    );
}

/** Starts a session and waits (briefly) for its first prompt; shared with terminal.run. */
export async function openSession(
  manager: TerminalManager,
  request: {
    shell?: string;
    cwd: string;
    cols: number;
    rows: number;
    backend: 'local' | 'proot';
    sandbox: boolean;
    /** The principal and client session opening it (`handleOwnerOf(context)`). */
    owner: HandleOwner;
  },
): Promise<TerminalSession | ReturnType<typeof failureResult>> {
  const directory = await resolveSessionDirectory(manager.workspaceRoot, request.cwd);
  if ('ok' in directory) return directory;
  try {
    const session = await manager.create({
      cwd: directory.absolute,
      cols: request.cols,
      rows: request.rows,
      backend: request.backend,
      sandbox: request.sandbox,
      owner: request.owner,
      ...(request.shell === undefined ? {} : { shell: request.shell }),
    });
    await session.waitFor(
      () =>
        session.integration !== 'none'
          ? session.prompts > 0
          : session.outputEnd > 0 && Date.now() - session.lastOutputAt > 200,
      { timeoutMs: FIRST_PROMPT_WAIT_MS },
    );
    return session;
  } catch (error) {
    if (!(error instanceof SessionCreateError)) throw error;
    switch (error.reason) {
      case 'limit':
        return failureResult(ToolErrorCode.EXECUTION_FAILED, error.message, {
          retryable: false,
          hint: 'Close a session you no longer need with terminal.close (terminal.workspaces lists yours; sessions of other clients count too), then retry.',
        });
      case 'shell': {
        const available = error.available ?? [];
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `shell: ${error.message}${available.length > 0 ? `. Shells available: ${available.join(', ')}` : ''}`,
          {
            field: 'shell',
            hint: 'Omit shell for the default or pick one of the shells available; to run another program, start a shell and run the program in it with terminal.run, which asks the user for each command outside the sandbox.',
            ...(error.available === undefined ? {} : { details: { available } }),
          },
        );
      }
      case 'backend':
        return failureResult(ToolErrorCode.UNSUPPORTED, `backend: ${error.message}`, {
          field: 'backend',
          hint: 'Use backend "local", or build the rootfs with terminal.linux_bootstrap and follow terminal.linux_status.',
        });
      case 'pty':
        return failureResult(ToolErrorCode.UNSUPPORTED, error.message, {
          hint: 'Terminals cannot run in this deployment; use shell_execute instead.',
        });
      case 'sandbox_off':
        return failureResult(ToolErrorCode.UNSUPPORTED, `sandbox: ${error.message}`, {
          field: 'sandbox',
          hint: 'Open the session without sandbox (every input then asks the user), or ask the user to set packages.platform-terminal.sandbox to "optional" in toolsys.config.json.',
        });
      case 'sandbox_required':
        return failureResult(ToolErrorCode.PERMISSION_DENIED, `sandbox: ${error.message}`, {
          field: 'sandbox',
          hint: 'Omit sandbox (or set it to true); to change workspace files use the file tools.',
        });
      case 'sandbox_unavailable':
        return failureResult(ToolErrorCode.UNSUPPORTED, `sandbox: ${error.message}`, {
          field: 'sandbox',
          retryable: false,
          hint:
            manager.sandboxMode === 'required'
              ? 'No terminal session can start here until the user installs bubblewrap (apt-get install bubblewrap) or lets it create namespaces; do not retry.'
              : 'Do not retry with the sandbox: open the session with sandbox false (every input then asks the user), or ask the user to install bubblewrap (apt-get install bubblewrap) or let it create namespaces.',
        });
      default: {
        const unreachable: never = error.reason;
        throw new Error(`unknown refusal ${String(unreachable)}`);
      }
    }
  }
}
