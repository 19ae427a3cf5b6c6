// `skill_list`: the installed skills and the broken ones.
import {
  type AnyToolDefinition,
  defineTool,
  principalKey,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { describeTools } from './shared.js';
import type { SkillStore } from './skill-store.js';

/** The `skill_list` tool. */
export function createSkillListTool(store: SkillStore): AnyToolDefinition {
  return defineTool({
    id: 'skill_list',
    description: 'Lists installed skills and their tools.',
    inputSchema: ToolSchema.empty(),
    outputSchema: ToolSchema.object({
      skills: z.array(
        z.object({ name: z.string(), description: z.string(), tools: z.array(z.string()) }),
      ),
      broken: z.array(z.string()),
    }),
    metadata: {
      category: 'skill',
      risk: 'LOW',
      tags: ['skills'],
      annotations: ToolHints.readOnly,
    },
    runPolicy: RunPolicies.quickRead,
    async execute(_args, context) {
      const definedBy = principalKey(context.principal);
      const { skills, broken } = await store.installed(definedBy);
      const listed = skills.map(({ manifest }) => ({
        name: manifest.name,
        description: manifest.description,
        tools: [...store.adapter.toolIds(manifest.name, definedBy)],
      }));
      const lines = listed.map(
        (skill) => `- ${skill.name} (${describeTools(skill.tools)}): ${skill.description}`,
      );
      for (const name of broken) lines.push(`- ${name}: broken (SKILL.md missing or invalid)`);
      const text =
        lines.length > 0
          ? `${listed.length} skill(s) installed:\n${lines.join('\n')}`
          : 'No skills are installed. Find some with skill_search, or make one with skill_create.';
      return successResult(text, { data: { skills: listed, broken } });
    },
  });
}
