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

/** The most off tools a search names. */
const MAX_OFF_SHOWN = 5;

/** Scores a tool against the query words: id hits weigh most, then category, then description. */
function score(
  tool: Pick<RegisteredTool, 'id' | 'description'> & {
    metadata?: Pick<RegisteredTool['metadata'], 'category' | 'tags'>;
  },
  query: readonly string[],
): number {
  if (query.length === 0) return 1;
  const id = words(tool.id);
  const description = new Set(words(tool.description));
  const tags = new Set(
    tool.metadata ? [tool.metadata.category, ...(tool.metadata.tags ?? [])] : [],
  );
  let total = 0;
  for (const word of query) {
    if (id.includes(word)) total += 5;
    else if (id.some((part) => part.startsWith(word) || word.startsWith(part))) total += 3;
    if (tags.has(word)) total += 3;
    if (description.has(word)) total += 1;
  }
  return total;
}

/** Off tools as lines, those off for one reason together: "Off here: a, b (owner: reason)". */
function describeOff(off: ReadonlyArray<{ id: string; owner: string; reason: string }>): string {
  const groups = new Map<string, string[]>();
  for (const tool of off) {
    const key = `${tool.owner}: ${tool.reason}`;
    groups.set(key, [...(groups.get(key) ?? []), tool.id]);
  }
  const lines = [...groups].map(([why, ids]) => `${ids.join(', ')} (${why})`);
  return `Off here (calling one says how to turn it on): ${lines.join('; ')}`;
}

/** The `tool_search` tool over the executor's registry. */
export function searchTool(executor: ToolExecutor): AnyToolDefinition {
  return defineTool({
    id: 'tool_search',
    description:
      'Searches the tools of this deployment by words and category, and returns matching ids with their risk and first sentence, then matching tools that are off here and why. Use it to find a tool, then tool_describe for its arguments and tool_call to run it.',
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
    async execute({ query, category, limit }, context) {
      const queryWords = words(query ?? '');
      // Tools that exist but are off here (their package is off, the configuration leaves them
      // out): named so the model asks for them instead of concluding they do not exist.
      const off =
        queryWords.length === 0 || category
          ? []
          : (await executor.registry.off.list())
              .map((tool) => ({
                tool,
                score: score({ id: tool.id, description: tool.description ?? '' }, queryWords),
              }))
              .filter((entry) => entry.score > 0)
              .sort((a, b) => b.score - a.score || a.tool.id.localeCompare(b.tool.id))
              .slice(0, MAX_OFF_SHOWN)
              .map(({ tool }) => ({ id: tool.id, owner: tool.owner, reason: tool.reason }));
      const offLines = off.length === 0 ? '' : `\n${describeOff(off)}`;
      // Only what this caller may call: another principal's run-time tools stay unseen.
      const visible = executor.registry.list(context.principal);
      const ranked = visible
        .filter((tool) => !DISCOVERY.has(tool.id) && !executor.registry.off.isAway(tool.id))
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
        const categories = [...new Set(visible.map((t) => t.metadata.category))];
        return successResult(
          `No tool matches. Categories here: ${categories.sort().join(', ')}. Try other words or a category.${offLines}`,
          { data: { tools: [], total: 0, off } },
        );
      }
      const lines = shown.map(
        (tool) => `${tool.id} (${tool.category}, ${tool.risk}): ${tool.summary}`,
      );
      const more =
        ranked.length > shown.length ? `\n${ranked.length - shown.length} more: raise limit.` : '';
      return successResult(`${lines.join('\n')}${more}${offLines}`, {
        data: { tools: shown, total: ranked.length, off },
      });
    },
  });
}
