import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import type { RootfsManager } from '../../rootfs-manager.js';
import { createBootstrapTool } from './bootstrap.js';
import { createLinuxNetworkTool } from './network.js';
import { createLinuxPackagesTool } from './packages.js';
import { createStatusTool } from './status.js';

/** Options for {@link createLinuxTools}. */
export interface LinuxToolsOptions {
  /** The rootfs builder and runner. */
  readonly rootfs: RootfsManager;
}

/**
 * `terminal.linux_bootstrap`, `terminal.linux_status`, `terminal.linux_packages`,
 * `terminal.linux_network`, `terminal.ubuntu_install`, `terminal.ubuntu.ensure` and
 * `terminal.ubuntu.status`.
 */
export function createLinuxTools(options: LinuxToolsOptions): AnyToolDefinition[] {
  const { rootfs } = options;
  return [
    createBootstrapTool(rootfs, {
      id: 'terminal.linux_bootstrap',
      flavor: 'debian',
      description: 'Builds the Debian rootfs for proot sessions in the background.',
      risk: 'HIGH',
    }),
    createStatusTool(rootfs, {
      id: 'terminal.linux_status',
      flavor: 'debian',
      description: 'Says whether the Debian rootfs is absent, building, ready or failed.',
    }),
    createLinuxPackagesTool(rootfs),
    createLinuxNetworkTool(rootfs),
    createBootstrapTool(rootfs, {
      id: 'terminal.ubuntu_install',
      flavor: 'ubuntu',
      description: 'Builds an Ubuntu rootfs in the background (needs ubuntuMirror).',
      risk: 'HIGH',
    }),
    createBootstrapTool(rootfs, {
      id: 'terminal.ubuntu.ensure',
      flavor: 'ubuntu',
      description: 'Starts the Ubuntu rootfs build unless it is ready.',
      risk: 'HIGH',
    }),
    createStatusTool(rootfs, {
      id: 'terminal.ubuntu.status',
      flavor: 'ubuntu',
      description: 'Says whether the Ubuntu rootfs is absent, building, ready or failed.',
    }),
  ];
}
