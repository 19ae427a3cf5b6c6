import {
  type AnyToolDefinition,
  defineTool,
  RunPolicies,
  successResult,
  ToolHints,
  type ToolMetadataInput,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import type { RootfsFlavor, RootfsManager } from '../../rootfs-manager.js';
import { describeStatus, shownStatus, statusData, statusSchema } from './shared.js';

/** The metadata of both status tools. */
const STATUS_METADATA: ToolMetadataInput = {
  category: 'terminal',
  risk: 'LOW',
  tags: ['rootfs', 'proot'],
  annotations: ToolHints.readOnly,
};

/** A tool that reports a rootfs build: `terminal.linux_status` and `terminal.ubuntu.status`. */
export function createStatusTool(
  rootfs: RootfsManager,
  spec: { id: string; flavor: RootfsFlavor; description: string },
): AnyToolDefinition {
  return defineTool({
    id: spec.id,
    description: spec.description,
    inputSchema: ToolSchema.object({}),
    outputSchema: statusSchema,
    metadata: STATUS_METADATA,
    runPolicy: RunPolicies.quickRead,
    async execute() {
      const status = shownStatus(await rootfs.status(spec.flavor));
      const prefix = spec.flavor === 'ubuntu' ? 'terminal.ubuntu.' : 'terminal.linux_';
      return successResult(describeStatus(status, prefix), { data: statusData(status) });
    },
  });
}
