import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import type { RootfsManager } from '../rootfs-manager.js';
import type { TerminalManager } from '../terminal-manager.js';
import { createIoTools } from './io/index.js';
import { createLinuxTools } from './linux/index.js';
import { createSessionTools } from './sessions/index.js';

/** Options for {@link createTerminalTools}. */
export interface TerminalToolsOptions {
  /** The sessions the tools act on; whoever created it disposes it. */
  readonly manager: TerminalManager;
  /** The rootfs behind the Linux tools and the `proot` backend. */
  readonly rootfs: RootfsManager;
  /** Quiet time after keystrokes before terminal.write reads the screen. Default 300 ms. */
  readonly settleMs?: number;
  /** Environment used to look for shells, proot and debootstrap. Default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

/** The 18 `terminal.*` tools, in the order of the spec. Building them starts nothing. */
export function createTerminalTools(options: TerminalToolsOptions): AnyToolDefinition[] {
  const session = createSessionTools({
    manager: options.manager,
    rootfs: options.rootfs,
    ...(options.environment ? { environment: options.environment } : {}),
  });
  const io = createIoTools({
    manager: options.manager,
    ...(options.settleMs === undefined ? {} : { settleMs: options.settleMs }),
  });
  // The spec lists terminal.create, then the io tools, then the other session tools.
  return [
    ...session.slice(0, 1),
    ...io,
    ...session.slice(1),
    ...createLinuxTools({ rootfs: options.rootfs }),
  ];
}
