import {
  type AnyToolDefinition,
  cancelledFailure,
  defineTool,
  failureResult,
  RunPolicies,
  type ToolContext,
  type ToolDefinition,
  ToolErrorCode,
  ToolHints,
  type ToolReturn,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { fillMacroSteps } from '../fill-macro-steps.js';
import type { MemoryEpisode, MemoryMacro } from '../memory-model.js';
import type { MemoryStore } from '../memory-store.js';
import { MemoryStoreError } from '../memory-store-error.js';
import type { NodeSearchHit } from '../memory-store-inputs.js';

/** Options for {@link createMemoryTools}. */
export interface MemoryToolsOptions {
  /**
   * The store the tools read, or a function opening it on the first call (so that building the
   * tools loads no SQLite). Whoever opened it closes it; the tools never do.
   */
  store: MemoryStore | (() => MemoryStore);
  /** Clock for time windows, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

const MAX_TEXT_IN_RESULT = 1_000;
const MINUTE_MS = 60_000;

const READ_ONLY_METADATA = {
  category: 'memory',
  risk: 'LOW',
  tags: ['memory', 'sqlite'],
  annotations: ToolHints.readOnly,
} as const;

/**
 * `memory_search_nodes`, `memory_recent_episodes` and `memory_recall_macro` over one memory store.
 * Cheap: building the tools touches no database.
 */
export function createMemoryTools(options: MemoryToolsOptions): AnyToolDefinition[] {
  const now = options.now ?? Date.now;
  const { store: given } = options;
  const store = typeof given === 'function' ? given : () => given;
  return [
    createSearchNodesTool(store),
    createRecentEpisodesTool(store, now),
    createRecallMacroTool(store),
  ];
}

/**
 * Declares a memory tool whose handler runs only on an open store and turns the store's expected
 * failures (bad query, bad input, not found) into results the model can act on.
 */
function defineMemoryTool<TArgs>(
  openStore: () => MemoryStore,
  definition: Omit<ToolDefinition<TArgs>, 'execute'> & {
    execute(args: TArgs, context: ToolContext, store: MemoryStore): ToolReturn;
  },
): ToolDefinition<TArgs> {
  return defineTool({
    ...definition,
    execute(args, context) {
      // Queries run synchronously, so the only point to honour cancellation is before starting.
      if (context.signal.aborted) return cancelledFailure(context.signal);
      let store: MemoryStore;
      try {
        store = openStore();
      } catch (error) {
        if (error instanceof MemoryStoreError) return storeFailure(error);
        return failureResult(
          ToolErrorCode.UNSUPPORTED,
          `the memory database cannot be opened: ${error instanceof Error ? error.message : String(error)}`,
          {
            hint: 'Memory is not available in this session; continue without it (or fix packages.cs-mem.databasePath).',
          },
        );
      }
      if (!store.isOpen) {
        return failureResult(ToolErrorCode.UNSUPPORTED, 'the memory database is closed', {
          hint: 'Memory is not available in this session; continue without it.',
        });
      }
      try {
        return definition.execute(args, context, store);
      } catch (error) {
        if (error instanceof MemoryStoreError) return storeFailure(error);
        throw error;
      }
    },
  });
}

function storeFailure(error: MemoryStoreError): ToolReturn {
  const field = error.field === undefined ? {} : { field: error.field };
  switch (error.code) {
    case 'INVALID_QUERY':
    case 'INVALID_INPUT':
      return failureResult(ToolErrorCode.INVALID_ARGUMENT, error.message, {
        ...field,
        hint:
          error.field === 'query'
            ? 'Search with plain words (syntax "plain"), or fix the FTS5 query: close quotes, put operators (AND, OR, NOT) between terms, quote words with punctuation.'
            : 'Fix the arguments and retry.',
      });
    case 'NOT_FOUND':
      return failureResult(ToolErrorCode.NOT_FOUND, error.message, field);
    case 'SCHEMA_TOO_NEW':
      return failureResult(ToolErrorCode.UNSUPPORTED, error.message);
  }
}

const searchSchema = ToolSchema.object({
  query: z
    .string()
    .min(1)
    .max(1_000)
    .describe(
      'What to look for: words (all must occur by default), or a node id. An old id that a node was migrated away from still finds it. End a word with * for a prefix ("deploy*").',
    ),
  roles: z
    .array(z.string().min(1).max(64))
    .max(20)
    .optional()
    .describe('Only nodes of these roles, e.g. ["person", "preference"]. Default: every role.'),
  limit: z.number().int().min(1).max(100).default(10).describe('Most nodes returned (1-100).'),
  match: z
    .enum(['all', 'any'])
    .default('all')
    .describe('Plain syntax only: nodes must contain all words ("all") or any of them ("any").'),
  syntax: z
    .enum(['plain', 'fts5'])
    .default('plain')
    .describe(
      '"plain": words, punctuation ignored. "fts5": SQLite FTS5 query syntax ("exact phrase", OR, NOT, NEAR(a b, 5), prefix*).',
    ),
  edges: z
    .number()
    .int()
    .min(0)
    .max(20)
    .default(0)
    .describe('Also return up to this many links of each node (0-20).'),
});

function createSearchNodesTool(store: () => MemoryStore): AnyToolDefinition {
  return defineMemoryTool(store, {
    id: 'memory_search_nodes',
    description:
      'Searches long-term semantic memory (facts, people, preferences, projects) by text and role. Ranked by BM25 text relevance, then node weight and recency; returns ids, roles, matching snippets with hits in [brackets], and optionally links between nodes. An exact node id, or an old id left by a migration, finds that node first. Use memory_recent_episodes for what happened recently and memory_recall_macro for reusable tool sequences.',
    inputSchema: searchSchema,
    outputSchema: ToolSchema.object({
      hits: z.array(
        z.object({
          id: z.string(),
          role: z.string(),
          text: z.string(),
          snippet: z.string(),
          score: z.number().nullable(),
          matchedBy: z.enum(['id', 'alias', 'text']),
          resolvedFrom: z.string().optional(),
          aliases: z.array(z.string()),
          weight: z.number(),
          updatedAt: z.string(),
          edges: z
            .array(z.object({ from: z.string(), to: z.string(), relation: z.string() }))
            .optional(),
        }),
      ),
    }),
    metadata: READ_ONLY_METADATA,
    runPolicy: RunPolicies.quickRead,
    execute({ query, roles, limit, match, syntax, edges }, _context, store) {
      const hits = store.searchNodes({
        text: query,
        limit,
        match,
        syntax,
        edgesPerHit: edges,
        ...(roles ? { roles } : {}),
      });
      const data = { hits: hits.map(describeHit) };
      if (hits.length === 0) {
        const next =
          syntax === 'plain' && match === 'all'
            ? ' Retry with match "any", fewer or different words, or a prefix such as "deploy*".'
            : ' Retry with other words, or without the roles filter.';
        return {
          ok: true,
          content: `No memory nodes match "${query}"${roles ? ` with roles ${roles.join(', ')}` : ''}.${next}`,
          data,
        };
      }
      const lines = hits.map((hit, index) => {
        const via = hit.matchedBy === 'alias' ? ` (found by its old id ${hit.resolvedFrom})` : '';
        const links =
          hit.edges && hit.edges.length > 0
            ? `\n   links: ${hit.edges.map((edge) => `${edge.from} -${edge.relation}-> ${edge.to}`).join('; ')}`
            : '';
        return `${index + 1}. ${hit.node.id} [${hit.node.role}]${via}: ${hit.snippet}${links}`;
      });
      return {
        ok: true,
        content: `${hits.length} memory node${hits.length === 1 ? '' : 's'} for "${query}":\n${lines.join('\n')}`,
        data,
      };
    },
  });
}

function describeHit(hit: NodeSearchHit): Record<string, unknown> {
  return {
    id: hit.node.id,
    role: hit.node.role,
    text: clip(hit.node.text, MAX_TEXT_IN_RESULT),
    snippet: hit.snippet,
    score: Number.isFinite(hit.score) ? hit.score : null,
    matchedBy: hit.matchedBy,
    ...(hit.resolvedFrom === undefined ? {} : { resolvedFrom: hit.resolvedFrom }),
    aliases: [...hit.node.aliases],
    weight: hit.node.weight,
    updatedAt: new Date(hit.node.updatedAt).toISOString(),
    ...(hit.edges
      ? {
          edges: hit.edges.map((edge) => ({
            from: edge.from,
            to: edge.to,
            relation: edge.relation,
          })),
        }
      : {}),
  };
}

const episodesSchema = ToolSchema.object({
  sinceMinutes: z
    .number()
    .int()
    .min(1)
    .max(5_256_000)
    .optional()
    .describe('Only episodes that started in the last N minutes (e.g. 60 for the last hour).'),
  since: z
    .string()
    .max(64)
    .optional()
    .describe('Only episodes that started at or after this ISO 8601 time. Overrides sinceMinutes.'),
  until: z
    .string()
    .max(64)
    .optional()
    .describe('Only episodes that started at or before this ISO 8601 time.'),
  sessionId: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Only episodes of this agent session. Default: every session.'),
  limit: z.number().int().min(1).max(100).default(10).describe('Most episodes, newest first.'),
  includeToolCalls: z
    .boolean()
    .default(true)
    .describe("Include each episode's tool calls (tool id and outcome)."),
});

function createRecentEpisodesTool(store: () => MemoryStore, now: () => number): AnyToolDefinition {
  return defineMemoryTool(store, {
    id: 'memory_recent_episodes',
    description:
      'Lists recent episodes from memory, newest first: what happened in earlier sessions or turns, with the tool calls each held and their outcomes. Filter by a time window and a session. Use memory_search_nodes for facts and memory_recall_macro for reusable tool sequences.',
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

function parseTime(value: string, field: string): number | ReturnType<typeof failureResult> {
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) {
    return failureResult(
      ToolErrorCode.INVALID_ARGUMENT,
      `${field}: "${value}" is not an ISO 8601 time`,
      { field, hint: `Send ${field} like "2026-11-29T14:00:00Z", or use sinceMinutes.` },
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

const recallSchema = ToolSchema.object({
  name: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('Exact macro name (case-insensitive). Give name, query, or both.'),
  query: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe('Words describing the task, matched against macro names, descriptions and tool ids.'),
  arguments: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .optional()
    .describe('Values for the macro\'s {param} placeholders, e.g. {"path": "notes.md"}.'),
  limit: z.number().int().min(1).max(20).default(3).describe('Most macros returned (1-20).'),
});

function createRecallMacroTool(store: () => MemoryStore): AnyToolDefinition {
  return defineMemoryTool(store, {
    id: 'memory_recall_macro',
    description:
      'Recalls macros from memory: named tool-call sequences that succeeded before, by exact name or by words describing the task. Each comes with its parameters, success count, and its steps ready to pass to tool_batch_run ({"steps": [...]}, placeholders filled from `arguments`) or to shortcut_define / shortcut_run. Use memory_search_nodes for facts.',
    inputSchema: recallSchema,
    outputSchema: ToolSchema.object({
      macros: z.array(
        z.object({
          name: z.string(),
          description: z.string(),
          params: z.array(z.object({ name: z.string() }).loose()),
          successCount: z.number(),
          failureCount: z.number(),
          ready: z.boolean(),
          missingArguments: z.array(z.string()),
          batch: z.object({ steps: z.array(z.object({ tool: z.string() }).loose()) }),
          shortcut: z.object({ id: z.string() }).loose(),
        }),
      ),
    }),
    metadata: READ_ONLY_METADATA,
    runPolicy: RunPolicies.quickRead,
    execute({ name, query, arguments: values = {}, limit }, _context, store) {
      if (name === undefined && query === undefined) {
        return failureResult(ToolErrorCode.INVALID_ARGUMENT, 'give name or query (or both)', {
          field: 'query',
          hint: 'Send {"query": "words describing the task"} or {"name": "macro-name"}.',
        });
      }
      const macros = store.findMacros({
        limit,
        ...(name === undefined ? {} : { name }),
        ...(query === undefined ? {} : { text: query }),
      });
      if (macros.length === 0) {
        return {
          ok: true,
          content: `No macro matches ${name === undefined ? '' : `name "${name}"`}${name !== undefined && query !== undefined ? ' or ' : ''}${query === undefined ? '' : `"${query}"`}. Plan the steps yourself; successful sequences are remembered as macros.`,
          data: { macros: [] },
        };
      }
      const described = macros.map((macro) => describeMacro(macro, values));
      const mistyped = described.flatMap((entry) => entry.mistyped);
      if (mistyped.length > 0) {
        return failureResult(ToolErrorCode.INVALID_ARGUMENT, `arguments: ${mistyped.join('; ')}`, {
          field: 'arguments',
        });
      }
      const lines = described.map(({ data }) => {
        const params =
          data.params.length > 0 ? ` params: ${data.params.map((p) => p.name).join(', ')};` : '';
        const missing =
          data.missingArguments.length > 0
            ? ` Needs arguments: ${data.missingArguments.join(', ')} before it can run.`
            : '';
        return `- ${data.name} (succeeded ${data.successCount}×, failed ${data.failureCount}×):${params} ${data.description}\n  tool_batch_run ${JSON.stringify(data.batch)}${missing}`;
      });
      return {
        ok: true,
        content: `${described.length} macro${described.length === 1 ? '' : 's'}:\n${lines.join('\n')}`,
        data: { macros: described.map(({ data }) => data) },
      };
    },
  });
}

function describeMacro(
  macro: MemoryMacro,
  values: Readonly<Record<string, string | number | boolean>>,
): {
  data: {
    name: string;
    description: string;
    params: MemoryMacro['params'];
    successCount: number;
    failureCount: number;
    ready: boolean;
    missingArguments: string[];
    batch: { steps: { tool: string; args: Record<string, unknown> }[] };
    shortcut: Record<string, unknown>;
  };
  mistyped: string[];
} {
  const filled = fillMacroSteps(macro.steps, macro.params, values);
  return {
    data: {
      name: macro.name,
      description: macro.description,
      params: macro.params,
      successCount: macro.successCount,
      failureCount: macro.failureCount,
      ready: filled.missing.length === 0,
      missingArguments: filled.missing,
      batch: { steps: filled.steps.map((step) => ({ tool: step.tool, args: { ...step.args } })) },
      // The shape shortcut_define accepts: lower-case id in the shortcut.* namespace, typed params.
      shortcut: {
        id: shortcutIdOf(macro.name),
        description: macro.description || `Recalled macro ${macro.name}`,
        params: macro.params.map((param) => ({
          name: param.name,
          type: param.type ?? 'string',
          description: param.description ?? '',
        })),
        steps: macro.steps.map((step) => ({ tool: step.tool, args: { ...step.args } })),
      },
    },
    mistyped: filled.mistyped,
  };
}

function shortcutIdOf(name: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  return `shortcut.${/^[a-z]/.test(slug) ? slug : `m_${slug}`}`;
}

function clip(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
