import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import {
  type RootfsFlavor,
  type RootfsManager,
  RootfsUnavailableError,
} from '../../rootfs-manager.js';
import { describeStatus, shownStatus, statusData, statusSchema } from './shared.js';

/**
 * A tool that builds a rootfs in the background: `terminal.linux_bootstrap`,
 * `terminal.ubuntu_install` and `terminal.ubuntu.ensure`, by the spec given.
 */
export function createBootstrapTool(
  rootfs: RootfsManager,
  spec: { id: string; flavor: RootfsFlavor; description: string; risk: 'HIGH' },
): AnyToolDefinition {
  return defineTool({
    id: spec.id,
    description: spec.description,
    inputSchema: ToolSchema.object({}),
    outputSchema: statusSchema,
    metadata: {
      category: 'terminal',
      risk: spec.risk,
      tags: ['rootfs', 'debootstrap'],
      annotations: {
        ...ToolHints.mutating,
        destructiveHint: spec.id !== 'terminal.ubuntu.ensure',
        idempotentHint: true,
        openWorldHint: true,
        sensitiveAction: true,
      },
      // Calls can take minutes: a client that supports tasks may run one as a task.
      taskSupport: 'optional',
    },
    runPolicy: { ...RunPolicies.mutating, timeoutMs: 30_000 },
    async execute() {
      const prefix = spec.flavor === 'ubuntu' ? 'terminal.ubuntu.' : 'terminal.linux_';
      let outcome: 'started' | 'running' | 'ready';
      try {
        outcome = await rootfs.bootstrap(spec.flavor);
      } catch (error) {
        if (error instanceof RootfsUnavailableError) {
          return failureResult(ToolErrorCode.UNSUPPORTED, error.message, { hint: error.hint });
        }
        throw error;
      }
      const status = shownStatus(await rootfs.status(spec.flavor));
      const lead =
        outcome === 'started'
          ? `Started building the ${spec.flavor === 'ubuntu' ? 'Ubuntu' : 'Debian'} ${status.suite} rootfs in the background.`
          : outcome === 'running'
            ? 'A build is already running.'
            : 'Nothing to do.';
      return successResult(`${lead} ${describeStatus(status, prefix)}`, {
        data: statusData(status),
      });
    },
  });
}
