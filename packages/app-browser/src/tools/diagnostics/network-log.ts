import { type AnyToolDefinition, RunPolicies, ToolSchema } from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { cleanPageLine, webPageBlock } from '../../page-text.js';
import { type BrowserToolSettings, defineBrowserTool } from '../browser-tool.js';
import { formatRequest, isFailed, READ_METADATA, shownUrl } from './shared.js';

const networkSchema = ToolSchema.object({
  filter: z.string().max(500).optional().describe('URL substring.'),
  onlyFailed: z.boolean().default(false).describe('Only failed or status >= 400.'),
  resourceType: z
    .enum(['document', 'script', 'stylesheet', 'image', 'font', 'xhr', 'fetch', 'media', 'other'])
    .optional()
    .describe('Only this type.'),
  limit: z.number().int().min(1).max(200).default(30).describe('Most recent requests shown.'),
});

/** `browser_network_log`: the most recent requests of the session. */
export function createNetworkLogTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineBrowserTool(settings, {
    id: 'browser_network_log',
    description: "Lists this session's recent requests.",
    inputSchema: networkSchema,
    metadata: READ_METADATA,
    runPolicy: RunPolicies.quickRead,
    async run({ filter, onlyFailed, resourceType, limit }, { session, settings: resolved }) {
      const needle = filter?.toLowerCase();
      const secrets = resolved.redact ?? [];
      // The filter searches the URL as shown (redacted), so a match never tells what is hidden.
      const matching = session.network.filter(
        (entry) =>
          (needle === undefined || shownUrl(entry.url, secrets).toLowerCase().includes(needle)) &&
          (!onlyFailed || isFailed(entry)) &&
          (resourceType === undefined ||
            entry.resourceType === resourceType ||
            (resourceType === 'other' &&
              ![
                'document',
                'script',
                'stylesheet',
                'image',
                'font',
                'xhr',
                'fetch',
                'media',
              ].includes(entry.resourceType))),
      );
      const shown = matching.slice(-limit);
      const lines = [
        `${matching.length} request${matching.length === 1 ? '' : 's'} match${matching.length === 1 ? 'es' : ''}${shown.length < matching.length ? `; the last ${shown.length} shown` : ''}${session.droppedRequests > 0 ? ` (${session.droppedRequests} older requests were dropped from the log)` : ''}.`,
        ...(shown.length === 0
          ? []
          : [webPageBlock(shown.map((entry) => formatRequest(entry, secrets)))]),
      ];
      if (matching.length === 0 && session.network.length > 0) {
        lines.push('Try without filter, onlyFailed or resourceType.');
      }
      return {
        ok: true,
        content: lines.join('\n'),
        data: {
          total: matching.length,
          dropped: session.droppedRequests,
          requests: shown.map((entry) => ({
            id: entry.id,
            method: cleanPageLine(entry.method, [], 20),
            url: shownUrl(entry.url, secrets),
            resourceType: entry.resourceType,
            tab: entry.tab,
            ...(entry.status === undefined ? {} : { status: entry.status }),
            ...(entry.size === undefined ? {} : { size: entry.size }),
            ...(entry.durationMs === undefined ? {} : { durationMs: entry.durationMs }),
            ...(entry.failure === undefined
              ? {}
              : { failure: cleanPageLine(entry.failure, [], 200) }),
          })),
        },
      };
    },
  });
}
