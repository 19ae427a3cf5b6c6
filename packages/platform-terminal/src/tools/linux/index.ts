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
      description:
        'Builds a Debian root filesystem (debootstrap, minbase variant, from the configured suite and mirror) under the data directory, as a background job, so that terminal.create with backend "proot" and terminal.linux_packages can use it without root on the host. Returns at once; follow progress with terminal.linux_status (a build takes about half a minute to a few minutes). Does nothing when the rootfs is ready; a failed build resumes.',
      risk: 'HIGH',
    }),
    createStatusTool(rootfs, {
      id: 'terminal.linux_status',
      flavor: 'debian',
      description:
        'Says whether the Debian rootfs is absent, bootstrapping (with the current debootstrap step and log tail), ready (with its OS name) or failed (with the log tail and what to do). Poll it after terminal.linux_bootstrap.',
    }),
    createLinuxPackagesTool(rootfs),
    createLinuxNetworkTool(rootfs),
    createBootstrapTool(rootfs, {
      id: 'terminal.ubuntu_install',
      flavor: 'ubuntu',
      description:
        'Builds an Ubuntu root filesystem (debootstrap from the configured Ubuntu suite and mirror) under the data directory as a background job; follow it with terminal.ubuntu.status. Needs an Ubuntu mirror in the configuration (ubuntuMirror) and the Ubuntu archive keyring on the host: without them it says exactly what is missing instead of pretending. Use terminal.ubuntu.ensure to only build when absent.',
      risk: 'HIGH',
    }),
    createBootstrapTool(rootfs, {
      id: 'terminal.ubuntu.ensure',
      flavor: 'ubuntu',
      description:
        'Makes sure an Ubuntu rootfs exists: answers at once when it is ready, otherwise starts (or reports) its background build like terminal.ubuntu_install. Needs an Ubuntu mirror in the configuration (ubuntuMirror); without one it says so plainly.',
      risk: 'HIGH',
    }),
    createStatusTool(rootfs, {
      id: 'terminal.ubuntu.status',
      flavor: 'ubuntu',
      description:
        'Says whether the Ubuntu rootfs is absent, bootstrapping, ready or failed, with the configured suite and mirror (or that no mirror is configured) and the build log tail.',
    }),
  ];
}
