// `skill_uninstall`: removes a skill and unregisters its tools.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  principalKey,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { describeTools, skillNameField } from './shared.js';
import { isFile } from './skill-source.js';
import type { SkillStore } from './skill-store.js';

/** The `skill_uninstall` tool. */
export function createSkillUninstallTool(store: SkillStore): AnyToolDefinition {
  return defineTool({
    id: 'skill_uninstall',
    description: 'Uninstalls a skill and deletes its folder.',
    inputSchema: ToolSchema.object({
      name: skillNameField.describe('Installed skill name.'),
    }),
    outputSchema: ToolSchema.object({ name: z.string(), removedTools: z.array(z.string()) }),
    metadata: {
      category: 'skill',
      risk: 'MEDIUM',
      tags: ['skills'],
      annotations: { ...ToolHints.destructive, idempotentHint: true },
    },
    runPolicy: RunPolicies.mutating,
    async execute({ name }, context) {
      const definedBy = principalKey(context.principal);
      const folder = store.folderOf(name, definedBy);
      if (!(await isFile(join(folder, 'SKILL.md'))) && !existsSync(folder)) {
        return failureResult(ToolErrorCode.NOT_FOUND, `Skill "${name}" is not installed.`, {
          field: 'name',
          hint: 'Call skill_list to see the installed skills.',
        });
      }
      const removedTools = store.adapter.unregister(name, definedBy);
      await rm(folder, { recursive: true, force: true });
      return successResult(
        `Uninstalled skill "${name}" (removed ${describeTools(removedTools)}).`,
        {
          data: { name, removedTools },
        },
      );
    },
  });
}
