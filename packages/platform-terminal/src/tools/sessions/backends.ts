import {
  type AnyToolDefinition,
  defineTool,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { findProgram, findShells } from '../../shells.js';
import type { SessionToolsOptions } from './shared.js';

/** The `terminal.backends` tool. */
export function createTerminalBackendsTool(options: SessionToolsOptions): AnyToolDefinition {
  const environment = options.environment ?? process.env;
  return defineTool({
    id: 'terminal.backends',
    description: 'Says which terminal backends, shells and sandbox can run here.',
    inputSchema: ToolSchema.object({}),
    outputSchema: ToolSchema.object({
      local: z.object({ available: z.boolean(), shells: z.array(z.string()) }),
      sandbox: z.object({
        mode: z.enum(['off', 'optional', 'required']),
        available: z.boolean(),
        reason: z.string(),
      }),
      proot: z.object({
        available: z.boolean(),
        reason: z.string(),
        proot: z.string().nullable(),
        debootstrap: z.string().nullable(),
      }),
    }),
    metadata: { category: 'terminal', risk: 'LOW', tags: ['pty'], annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    async execute() {
      const shells = await findShells(environment);
      const proot = await findProgram('proot', environment);
      const debootstrap =
        (await findProgram('debootstrap', environment)) ??
        (await findProgram('/usr/sbin/debootstrap', environment));
      const rootfsReady = options.rootfs ? await options.rootfs.isReady() : false;
      const sandbox = await options.manager.sandboxStatus();
      const reason =
        proot === undefined
          ? 'proot is not installed (apt-get install proot)'
          : options.rootfs === undefined
            ? 'no rootfs directory is configured for this deployment'
            : rootfsReady
              ? 'a rootfs is ready'
              : 'no rootfs yet: build one with terminal.linux_bootstrap';
      const data = {
        local: { available: shells.length > 0, shells: shells.map((shell) => shell.name) },
        sandbox,
        proot: {
          available: proot !== undefined && rootfsReady,
          reason,
          proot: proot ?? null,
          debootstrap: debootstrap ?? null,
        },
      };
      return successResult(
        `local PTY: ${shells.length > 0 ? `shells ${shells.map((shell) => shell.name).join(', ')}` : 'no shell found'}\nsandbox (${sandbox.mode}): ${sandbox.available ? 'available' : 'not available'} (${sandbox.reason})\nproot rootfs: ${data.proot.available ? 'ready' : 'not available'} (${reason}); debootstrap ${debootstrap === undefined ? 'not installed' : 'installed'}`,
        { data },
      );
    },
  });
}
