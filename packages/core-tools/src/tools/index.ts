import { join } from 'node:path';
import type { AnyToolDefinition, ToolExecutor } from '@toolsys/core-tool-registry';
import { CpuToolPool, offloadCpuTools } from '../cpu/cpu-tool-pool.js';
import { createFileTools } from './files/index.js';
import { createFileMemoryTools, type FileMemoryToolsOptions } from './memory/index.js';
import { createNetworkTools, type NetworkToolsOptions } from './network/index.js';
import { createOrchestrationTools } from './orchestration/index.js';
import { createShellTools, type ShellToolsOptions } from './shell/index.js';
import { createSkillTools, type SkillToolsOptions } from './skills/index.js';
import { createStructuredTools } from './structured/index.js';
import { createUtilityTools } from './utilities/index.js';

/** Options for {@link createCoreTools}. */
export interface CoreToolsOptions {
  /** Directory file, shell and download tools are confined to. */
  workspaceRoot: string;
  /** Directory for tool state: notes, skills, shortcuts. */
  dataDir: string;
  /** Executor used by tools that call other tools (batch, shortcuts, skills). */
  executor: ToolExecutor;
  /** Shell options beyond the workspace root. */
  shell?: Omit<ShellToolsOptions, 'workspaceRoot'>;
  /** Network options beyond the workspace root. */
  network?: Omit<NetworkToolsOptions, 'workspaceRoot'>;
  /** File-memory options beyond its directory. */
  memory?: Omit<FileMemoryToolsOptions, 'directory'>;
  /** Skill options beyond their directory, registry and workspace root. */
  skills?: Omit<SkillToolsOptions, 'directory' | 'registry' | 'workspaceRoot'>;
  /**
   * Worker threads for the CPU-bound tools (calculate, regex, json_path, json_transform, csv_query,
   * xml_extract, text_diff …), so none of them can block the event loop. Pass your own pool and call
   * its `close()` on shutdown; when absent a pool is made here (its idle workers never keep the
   * process alive). `false` runs those tools on the calling thread (tests, single-shot scripts);
   * `web_fetch` still converts large pages in a pool of its own, made on first use.
   */
  cpuPool?: CpuToolPool | false;
}

/** Every tool of the core package, ready to register. */
export function createCoreTools(options: CoreToolsOptions): AnyToolDefinition[] {
  const { workspaceRoot, dataDir, executor } = options;
  const cpuPool = options.cpuPool === false ? undefined : (options.cpuPool ?? new CpuToolPool());
  const tools = [
    ...createUtilityTools(),
    ...createFileTools({ workspaceRoot }),
    ...createShellTools({ ...options.shell, workspaceRoot }),
    ...createNetworkTools({ ...options.network, workspaceRoot, ...(cpuPool ? { cpuPool } : {}) }),
    ...createFileMemoryTools({ ...options.memory, directory: join(dataDir, 'notes') }),
    ...createStructuredTools({ workspaceRoot }),
    ...createSkillTools({
      ...options.skills,
      directory: join(dataDir, 'skills'),
      registry: executor.registry,
      workspaceRoot,
    }),
    ...createOrchestrationTools({ executor, shortcutDirectory: join(dataDir, 'shortcuts') }),
  ];
  return cpuPool ? offloadCpuTools(tools, cpuPool) : tools;
}
