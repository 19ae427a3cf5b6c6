// memory_recent_episodes: the recorded episodes of a time window or of one session.
import {
  type AnyToolDefinition,
  RunPolicies,
  type ToolFailure,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { MemoryEpisode } from '../memory-model.js';

import {
  defineMemoryTool,
  invalidArgument,
  MINUTE_MS,
  type OpenMemoryStore,
  READ_ONLY_METADATA,
} from './shared.js';

const episodesSchema = ToolSchema.object({
  sinceMinutes: z
    .number()
    .int()
    .min(1)
    .max(5_256_000)
    .optional()
    .describe('Only the last N minutes.'),
  since: z.string().max(64).optional().describe('ISO 8601 start.'),
  until: z.string().max(64).optional().describe('ISO 8601 end.'),
  sessionId: z.string().min(1).max(200).optional().describe('Only this session.'),
  limit: z.number().int().min(1).max(100).default(10).describe('Most episodes.'),
  includeToolCalls: z.boolean().default(true).describe('Include tool calls.'),
});

export function createRecentEpisodesTool(
  store: OpenMemoryStore,
  now: () => number,
): AnyToolDefinition {
  return defineMemoryTool(store, {
    id: 'memory_recent_episodes',
    description: 'Lists recent memory episodes and their tool calls, newest first.',
    inputSchema: episodesSchema,
    outputSchema: ToolSchema.object({
      episodes: z.array(
        z.object({
          id: z.string(),
          sessionId: z.string(),
          summary: z.string(),
          startedAt: z.string(),
          endedAt: z.string(),
          toolCalls: z
            .array(z.object({ toolId: z.string(), outcome: z.string() }).loose())
            .optional(),
        }),
      ),
    }),
    metadata: READ_ONLY_METADATA,
    runPolicy: RunPolicies.quickRead,
    execute({ sinceMinutes, since, until, sessionId, limit, includeToolCalls }, _context, store) {
      const sinceMs =
        since !== undefined
          ? parseTime(since, 'since')
          : sinceMinutes !== undefined
            ? now() - sinceMinutes * MINUTE_MS
            : undefined;
      if (typeof sinceMs === 'object') return sinceMs;
      const untilMs = until === undefined ? undefined : parseTime(until, 'until');
      if (typeof untilMs === 'object') return untilMs;
      const episodes = store.recentEpisodes({
        limit,
        ...(sinceMs === undefined ? {} : { since: sinceMs }),
        ...(untilMs === undefined ? {} : { until: untilMs }),
        ...(sessionId === undefined ? {} : { sessionId }),
      });
      const data = {
        episodes: episodes.map((episode) => describeEpisode(episode, includeToolCalls)),
      };
      if (episodes.length === 0) {
        return {
          ok: true,
          content:
            'No episodes in that window. Widen it (a larger sinceMinutes, or no sessionId), or search facts with memory_search_nodes.',
          data,
        };
      }
      const lines = episodes.map((episode) => {
        const calls =
          includeToolCalls && episode.toolCalls.length > 0
            ? ` [${episode.toolCalls
                .map((call) =>
                  call.outcome === 'success' || call.outcome === 'ok'
                    ? call.toolId
                    : `${call.toolId}:${call.outcome}`,
                )
                .join(' → ')}]`
            : '';
        return `- ${new Date(episode.startedAt).toISOString()} (${episode.sessionId}) ${episode.summary}${calls}`;
      });
      return {
        ok: true,
        content: `${episodes.length} episode${episodes.length === 1 ? '' : 's'}, newest first:\n${lines.join('\n')}`,
        data,
      };
    },
  });
}

function parseTime(value: string, field: string): number | ToolFailure {
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) {
    return invalidArgument(
      field,
      `${field}: "${value}" is not an ISO 8601 time`,
      `Send ${field} like "2026-11-29T14:00:00Z", or use sinceMinutes.`,
    );
  }
  return parsed;
}

function describeEpisode(
  episode: MemoryEpisode,
  includeToolCalls: boolean,
): Record<string, unknown> {
  return {
    id: episode.id,
    sessionId: episode.sessionId,
    summary: episode.summary,
    startedAt: new Date(episode.startedAt).toISOString(),
    endedAt: new Date(episode.endedAt).toISOString(),
    ...(includeToolCalls ? { toolCalls: episode.toolCalls.map((call) => ({ ...call })) } : {}),
  };
}
