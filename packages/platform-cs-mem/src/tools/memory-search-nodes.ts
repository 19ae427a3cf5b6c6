// memory_search_nodes: full-text search over the semantic nodes, with their edges.
import { type AnyToolDefinition, RunPolicies, ToolSchema } from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { NodeSearchHit } from '../memory-store-inputs.js';

import {
  clip,
  defineMemoryTool,
  MAX_TEXT_IN_RESULT,
  type OpenMemoryStore,
  READ_ONLY_METADATA,
} from './shared.js';

const searchSchema = ToolSchema.object({
  query: z.string().min(1).max(1_000).describe('Words or a node id; "deploy*" is a prefix.'),
  roles: z.array(z.string().min(1).max(64)).max(20).optional().describe('Only these roles.'),
  limit: z.number().int().min(1).max(100).default(10).describe('Most nodes.'),
  match: z.enum(['all', 'any']).default('all').describe('plain: all or any word.'),
  syntax: z.enum(['plain', 'fts5']).default('plain').describe('fts5: SQLite FTS5 syntax.'),
  edges: z.number().int().min(0).max(20).default(0).describe('Links returned per node.'),
});

export function createSearchNodesTool(store: OpenMemoryStore): AnyToolDefinition {
  return defineMemoryTool(store, {
    id: 'memory_search_nodes',
    description: 'Searches long-term memory nodes by text or id (memorize notes: use recall).',
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
