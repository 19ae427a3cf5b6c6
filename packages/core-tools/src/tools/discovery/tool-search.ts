// `tool_search`: finds tools of this deployment by words and category.
import type { AnyToolDefinition, RegisteredTool, ToolExecutor } from '@toolsys/core-tool-registry';
import {
  defineTool,
  firstSentence,
  RunPolicies,
  successResult,
  TOOL_CATEGORIES,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { DISCOVERY } from './shared.js';

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Scores a tool against the query words: id hits weigh most, then category, then description. */
function score(tool: RegisteredTool, query: readonly string[]): number {
  if (query.length === 0) return 1;
  const id = words(tool.id);
  const description = new Set(words(tool.description));
  const tags = new Set([tool.metadata.category, ...(tool.metadata.tags ?? [])]);
  let total = 0;
  for (const word of query) {
    if (id.includes(word)) total += 5;
    else if (id.some((part) => part.startsWith(word) || word.startsWith(part))) total += 3;
    if (tags.has(word)) total += 3;
    if (description.has(word)) total += 1;
  }
  return total;
}

/** The `tool_search` tool over the executor's registry. */
export function searchTool(executor: ToolExecutor): AnyToolDefinition {
  return defineTool({
    id: 'tool_search',
    description:
      'Searches the tools of this deployment by words and category, and returns matching ids with their risk and first sentence. Use it to find a tool, then tool_describe for its arguments and tool_call to run it.',
    inputSchema: ToolSchema.object({
      query: z
        .string()
        .max(200)
        .optional()
        .describe('Words describing what you want to do, e.g. "read file" or "take screenshot".'),
      category: z.enum(TOOL_CATEGORIES).optional().describe('Only tools of this category.'),
      limit: z.number().int().min(1).max(50).default(10).describe('Most tools returned.'),
    }),
    metadata: {
      category: 'system',
      risk: 'LOW',
      annotations: ToolHints.readOnly,
    },
    runPolicy: RunPolicies.quickRead,
    execute({ query, category, limit }) {
      const queryWords = words(query ?? '');
      const ranked = executor.registry
        .list()
        .filter((tool) => !DISCOVERY.has(tool.id))
        .filter((tool) => !category || tool.metadata.category === category)
        .map((tool) => ({ tool, score: score(tool, queryWords) }))
        .filter((entry) => entry.score > 0)
        .sort((a, b) => b.score - a.score || a.tool.id.localeCompare(b.tool.id));
      const shown = ranked.slice(0, limit).map(({ tool }) => ({
        id: tool.id,
        category: tool.metadata.category,
        risk: tool.metadata.risk,
        summary: firstSentence(tool.description),
      }));
      if (shown.length === 0) {
        const categories = [...new Set(executor.registry.list().map((t) => t.metadata.category))];
        return successResult(
          `No tool matches. Categories here: ${categories.sort().join(', ')}. Try other words or a category.`,
          { data: { tools: [], total: 0 } },
        );
      }
      const lines = shown.map(
        (tool) => `${tool.id} (${tool.category}, ${tool.risk}): ${tool.summary}`,
      );
      const more =
        ranked.length > shown.length ? `\n${ranked.length - shown.length} more: raise limit.` : '';
      return successResult(`${lines.join('\n')}${more}`, {
        data: { tools: shown, total: ranked.length },
      });
    },
  });
}
