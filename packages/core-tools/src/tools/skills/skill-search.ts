// `skill_search`: finds installed and catalogued skills by words.
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
import type { SkillStore } from './skill-store.js';

/** The `skill_search` tool. */
export function createSkillSearchTool(store: SkillStore): AnyToolDefinition {
  return defineTool({
    id: 'skill_search',
    description: 'Searches installed and catalog skills.',
    inputSchema: ToolSchema.object({
      query: z.string().trim().max(200).default('').describe('Words; empty lists all.'),
      limit: z.number().int().min(1).max(50).default(10).describe('Most results.'),
    }),
    outputSchema: ToolSchema.object({
      results: z.array(
        z.object({
          name: z.string(),
          description: z.string(),
          installed: z.boolean(),
          source: z.string().optional(),
        }),
      ),
      total: z.number(),
    }),
    metadata: {
      category: 'skill',
      risk: 'LOW',
      tags: ['skills'],
      annotations: { ...ToolHints.readOnly, openWorldHint: true },
    },
    runPolicy: RunPolicies.quickRead,
    async execute({ query, limit }, context) {
      const { skills } = await store.installed(principalKey(context.principal));
      const installedNames = new Set(skills.map((skill) => skill.manifest.name));
      const candidates: Array<{
        name: string;
        description: string;
        installed: boolean;
        source?: string;
      }> = [
        ...skills.map((skill) => ({
          name: skill.manifest.name,
          description: skill.manifest.description,
          installed: true,
        })),
        ...(await store.catalogEntries())
          .filter((entry) => !installedNames.has(entry.name))
          .map((entry) => ({ ...entry, installed: false })),
      ];
      const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
      const matches = candidates.filter((candidate) => {
        const text = `${candidate.name} ${candidate.description}`.toLowerCase();
        return terms.every((term) => text.includes(term));
      });
      const shown = matches.slice(0, limit);
      if (shown.length === 0) {
        return successResult(
          query ? `No skills match "${query}".` : 'No skills are installed or in any catalog.',
          { data: { results: [], total: 0 } },
        );
      }
      const lines = shown.map((skill) =>
        skill.installed
          ? `- ${skill.name} (installed): ${skill.description}`
          : `- ${skill.name}: ${skill.description}\n  install: skill_install {"source": ${JSON.stringify(skill.source ?? '')}}`,
      );
      return successResult(`${matches.length} skill(s):\n${lines.join('\n')}`, {
        data: { results: shown, total: matches.length },
      });
    },
  });
}
