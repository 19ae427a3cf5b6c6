import type { AnyToolDefinition, RegisteredTool, ToolExecutor } from '@toolsys/core-tool-registry';
import {
  defineTool,
  failureResult,
  firstSentence,
  lookupTool,
  nestedCallOptions,
  RunPolicies,
  successResult,
  TOOL_CATEGORIES,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
  ToolSuggester,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';

/** The ids of the discovery tools: what an MCP client lists in `discover` mode. */
export const DISCOVERY_TOOL_IDS = ['tool_search', 'tool_describe', 'tool_call'] as const;

const DISCOVERY = new Set<string>(DISCOVERY_TOOL_IDS);
const suggester = new ToolSuggester();

/** Options for {@link createDiscoveryTools}. */
export interface DiscoveryToolsOptions {
  /** The executor whose registry is searched and through which `tool_call` runs (same gates). */
  executor: ToolExecutor;
}

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

function searchTool(executor: ToolExecutor): AnyToolDefinition {
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

function describeTool(executor: ToolExecutor): AnyToolDefinition {
  return defineTool({
    id: 'tool_describe',
    description:
      "Returns one tool's full description, risk, hints and the JSON Schema of its arguments. Call it before tool_call for a tool you have not used yet.",
    inputSchema: ToolSchema.object({
      id: z.string().min(1).max(200).describe('The tool id, as tool_search returned it.'),
    }),
    metadata: {
      category: 'system',
      risk: 'LOW',
      annotations: ToolHints.readOnly,
    },
    runPolicy: RunPolicies.quickRead,
    execute({ id }) {
      const found = lookupTool(executor.registry, suggester, id);
      if (!found.ok) return found.failure;
      const { tool } = found;
      const description = {
        id: tool.id,
        description: tool.description,
        category: tool.metadata.category,
        risk: tool.metadata.risk,
        annotations: tool.metadata.annotations,
        inputSchema: tool.inputSchema.jsonSchema,
      };
      return successResult(JSON.stringify(description, null, 2), { data: description });
    },
  });
}

function callTool(executor: ToolExecutor): AnyToolDefinition {
  return defineTool({
    id: 'tool_call',
    description:
      'Runs any tool of this deployment by id with its arguments, through the same permission, validation and time-limit checks as a direct call, and returns its result. Find ids with tool_search and arguments with tool_describe.',
    inputSchema: ToolSchema.object({
      id: z.string().min(1).max(200).describe('The tool id.'),
      arguments: z
        .record(z.string(), z.unknown())
        .default({})
        .describe('The arguments object, as tool_describe shows its schema.'),
    }),
    metadata: {
      category: 'system',
      // The called tool's own risk gate asks; this wrapper adds no risk of its own.
      risk: 'LOW',
      annotations: { ...ToolHints.destructive, openWorldHint: true },
    },
    runPolicy: RunPolicies.legacy,
    execute({ id, arguments: args }, context) {
      if (DISCOVERY.has(id)) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `id: ${id} cannot be called through tool_call`,
          {
            field: 'id',
            hint: `Call ${id} directly.`,
          },
        );
      }
      return executor.execute(id, args, nestedCallOptions(context));
    },
  });
}

/**
 * The three meta tools of `discover` mode: `tool_search`, `tool_describe` and `tool_call`. With
 * only these listed, a client's context holds a few hundred tokens however many tools are composed,
 * and every tool stays one search away.
 */
export function createDiscoveryTools(options: DiscoveryToolsOptions): AnyToolDefinition[] {
  return [searchTool(options.executor), describeTool(options.executor), callTool(options.executor)];
}
