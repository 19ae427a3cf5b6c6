// web_search: titles, URLs and snippets from the deployment's search backend.
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { type NetworkSettings, withRequestTimeout } from './shared.js';

const webSearchSchema = ToolSchema.object({
  query: z.string().trim().min(1).max(500).describe('Query.'),
  limit: z.number().int().min(1).max(20).default(5).describe('Most results.'),
});

/** The `web_search` tool. */
export function createWebSearchTool(settings: NetworkSettings): AnyToolDefinition {
  return defineTool({
    id: 'web_search',
    description: 'Searches the web; returns titles, URLs, snippets.',
    inputSchema: webSearchSchema,
    outputSchema: ToolSchema.object({
      backend: z.string(),
      results: z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string() })),
    }),
    metadata: {
      category: 'network',
      risk: 'LOW',
      tags: ['web', 'search'],
      annotations: { ...ToolHints.readOnly, openWorldHint: true },
    },
    runPolicy: RunPolicies.network,
    async execute({ query, limit }, context) {
      const backend = settings.searchBackend;
      if (!backend) {
        return failureResult(
          ToolErrorCode.UNSUPPORTED,
          'web_search is not available: no search backend is configured in this deployment.',
          {
            hint: 'Use web_fetch on a URL you know instead. An operator can enable search by configuring a SearXNG URL (the searxngUrl option of the network tools).',
          },
        );
      }
      return withRequestTimeout(settings, context, async (signal) => {
        const results = await backend.search(query, { limit, signal });
        if (results.length === 0) {
          return successResult(`No results for "${query}".`, {
            data: { backend: backend.name, results: [] },
          });
        }
        const text = results
          .map((hit, index) => `${index + 1}. ${hit.title}\n   ${hit.url}\n   ${hit.snippet}`)
          .join('\n');
        return successResult(text, { data: { backend: backend.name, results: [...results] } });
      });
    },
  });
}
