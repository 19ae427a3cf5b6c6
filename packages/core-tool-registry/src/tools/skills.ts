import type { AnyToolDefinition } from '../tool.js';
import type { ToolRegistry } from '../tool-registry.js';

/** Options for {@link createSkillTools}. */
export interface SkillToolsOptions {
  /** Directory installed skills live in. */
  directory: string;
  /** Registry that skill-declared tools are added to and removed from at run time. */
  registry: ToolRegistry;
  /** Directory skill commands run in. */
  workspaceRoot: string;
}

/** `skill_search`, `skill_install`, `skill_create`, `skill_list` and `skill_uninstall`. */
export function createSkillTools(_options: SkillToolsOptions): AnyToolDefinition[] {
  return [];
}
