// Builds the skill tools group and registers the tools of the installed skills.
import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import type { SkillToolsOptions } from './shared.js';
import { createSkillCreateTool } from './skill-create.js';
import { createSkillInstallTool } from './skill-install.js';
import { createSkillListTool } from './skill-list.js';
import { createSkillSearchTool } from './skill-search.js';
import { SkillStore } from './skill-store.js';
import { createSkillUninstallTool } from './skill-uninstall.js';

export type { SkillToolsOptions } from './shared.js';

/** `skill_search`, `skill_install`, `skill_create`, `skill_list` and `skill_uninstall`. */
export function createSkillTools(options: SkillToolsOptions): AnyToolDefinition[] {
  const store = new SkillStore(options);
  if (options.loadInstalled ?? true) store.loadInstalledSync();
  return [
    createSkillSearchTool(store),
    createSkillInstallTool(store),
    createSkillCreateTool(store),
    createSkillListTool(store),
    createSkillUninstallTool(store),
  ];
}
