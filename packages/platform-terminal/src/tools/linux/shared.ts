// What the rootfs tools share: the status schema, how a status reads, and running a command in
// the rootfs.
import {
  failureResult,
  type ToolContext,
  ToolErrorCode,
  type ToolReturn,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import {
  type RootfsManager,
  type RootfsStatus,
  RootfsUnavailableError,
} from '../../rootfs-manager.js';
import { showOutputLine } from '../tool-support.js';

/** The structured result of the status tools (and of a bootstrap call). */
export const statusSchema = ToolSchema.object({
  flavor: z.string(),
  state: z.enum(['absent', 'bootstrapping', 'ready', 'failed']),
  suite: z.string(),
  mirror: z.string().nullable(),
  phase: z.string().nullable(),
  exitCode: z.number().nullable(),
  logTail: z.array(z.string()),
  osName: z.string().nullable(),
});

/**
 * A status as the model is shown it: the OS name (from the rootfs's os-release), the debootstrap
 * step and the log lines (which quote the mirror) each as one line of outside text.
 */
export function shownStatus(status: RootfsStatus): RootfsStatus {
  return {
    ...status,
    osName: status.osName === null ? null : showOutputLine(status.osName),
    phase: status.phase === null ? null : showOutputLine(status.phase),
    logTail: status.logTail.map((line) => showOutputLine(line)),
  };
}

/** What a status means for the model, with the next tool to call. */
export function describeStatus(status: RootfsStatus, toolPrefix: string): string {
  const name = status.flavor === 'ubuntu' ? 'Ubuntu' : 'Debian';
  switch (status.state) {
    case 'ready':
      return `The ${name} rootfs (${status.osName ?? status.suite}) is ready. Open a shell in it with terminal.create {"backend": "proot"}.`;
    case 'bootstrapping':
      return `The ${name} ${status.suite} rootfs is being built${status.phase ? `: ${status.phase}` : ''}. Check again with ${toolPrefix}status in a few seconds.`;
    case 'failed':
      return `The ${name} ${status.suite} rootfs build failed${status.exitCode === null ? '' : ` (debootstrap exit ${status.exitCode})`}. Last log lines:\n${status.logTail.join('\n')}\nFix the cause (mirror reachable? disk space?) and call the bootstrap tool again: it resumes.`;
    case 'absent':
      return status.mirror === null
        ? `No ${name} rootfs, and no ${name} mirror is configured (set ${status.flavor}Mirror in the platform-terminal config).`
        : `No ${name} rootfs yet. Build one (${status.suite} from ${status.mirror}) with ${status.flavor === 'ubuntu' ? 'terminal.ubuntu.ensure' : 'terminal.linux_bootstrap'}.`;
  }
}

/** A status as the result's data, matching {@link statusSchema}. */
export function statusData(status: RootfsStatus): Record<string, unknown> {
  return {
    flavor: status.flavor,
    state: status.state,
    suite: status.suite,
    mirror: status.mirror,
    phase: status.phase,
    exitCode: status.exitCode,
    logTail: status.logTail,
    osName: status.osName,
  };
}

/** Runs `argv` in the Debian rootfs, or explains why it cannot. */
export async function runInRootfs(
  rootfs: RootfsManager,
  argv: string[],
  timeoutMs: number,
  context: ToolContext,
): Promise<
  | { ok: true; exitCode: number | null; stdout: string; stderr: string; timedOut: boolean }
  | ToolReturn
> {
  if (!(await rootfs.isReady('debian'))) {
    const status = await rootfs.status('debian');
    return failureResult(
      ToolErrorCode.UNSUPPORTED,
      `the Debian rootfs is not ready (${status.state})`,
      {
        hint:
          status.state === 'bootstrapping'
            ? 'Wait for the build: poll terminal.linux_status.'
            : 'Build it with terminal.linux_bootstrap, then poll terminal.linux_status until it is ready.',
      },
    );
  }
  try {
    const result = await rootfs.run('debian', argv, { timeoutMs, signal: context.signal });
    return { ok: true, ...result };
  } catch (error) {
    if (error instanceof RootfsUnavailableError) {
      return failureResult(ToolErrorCode.UNSUPPORTED, error.message, { hint: error.hint });
    }
    throw error;
  }
}

/** Whether runInRootfs ran the command (else it returned the failure to show). */
export function isRunResult(value: unknown): value is {
  ok: true;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
} {
  return typeof value === 'object' && value !== null && 'stdout' in value;
}
