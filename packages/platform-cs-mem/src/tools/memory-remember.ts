// memory_remember: writes a semantic node (a fact, person, preference or project) and its links.
import {
  type AnyToolDefinition,
  RunPolicies,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { MAX_ID_LENGTH, MAX_TEXT_LENGTH } from '../memory-validation.js';
import { clip, defineMemoryTool, type OpenMemoryStore } from './shared.js';

/** The most links one call writes. */
const MAX_LINKS = 20;

const rememberSchema = ToolSchema.object({
  id: z.string().min(1).max(MAX_ID_LENGTH).describe('Stable id, e.g. "person:alice".'),
  text: z.string().min(1).max(MAX_TEXT_LENGTH).describe('What to remember.'),
  role: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('fact (default), person, preference, project …'),
  weight: z.number().min(0).max(1_000).optional().describe('Importance; default 1.'),
  links: z
    .array(
      z.object({
        relation: z.string().min(1).max(100).describe('What the link means, e.g. "works_on".'),
        to: z.string().min(1).max(MAX_ID_LENGTH).describe('Id of an existing node.'),
      }),
    )
    .max(MAX_LINKS)
    .optional()
    .describe('Links to nodes.'),
});

/** The `memory_remember` tool. */
export function createRememberTool(store: OpenMemoryStore): AnyToolDefinition {
  return defineMemoryTool(store, {
    id: 'memory_remember',
    description: 'Writes a long-term memory node with links; the same id replaces it.',
    inputSchema: rememberSchema,
    outputSchema: ToolSchema.object({
      id: z.string(),
      role: z.string(),
      created: z.boolean(),
      links: z.array(z.object({ from: z.string(), to: z.string(), relation: z.string() })),
    }),
    metadata: {
      category: 'memory',
      risk: 'LOW',
      tags: ['memory', 'sqlite'],
      // Writing an existing id replaces its text: an update, not only an addition.
      annotations: { ...ToolHints.destructive, idempotentHint: true },
    },
    runPolicy: RunPolicies.mutating,
    execute({ id, text, role, weight, links = [] }, _context, store) {
      const written = store.transaction(() => {
        const existed = store.getNode(id) !== undefined;
        const node = store.upsertNode({
          id,
          text,
          ...(role === undefined ? {} : { role }),
          ...(weight === undefined ? {} : { weight }),
        });
        const edges = links.map((link) =>
          store.link({ from: node.id, to: link.to, relation: link.relation }),
        );
        return { node, created: !existed, edges };
      });
      const { node, created, edges } = written;
      const linked =
        edges.length === 0
          ? ''
          : `\nLinks: ${edges.map((edge) => `${edge.from} -${edge.relation}-> ${edge.to}`).join('; ')}`;
      return {
        ok: true,
        content: `${created ? 'Remembered' : 'Updated'} ${node.id} [${node.role}]: ${clip(node.text, 200)}${linked}`,
        data: {
          id: node.id,
          role: node.role,
          created,
          links: edges.map((edge) => ({ from: edge.from, to: edge.to, relation: edge.relation })),
        },
      };
    },
  });
}
