// recall: a note by key, or the notes matching a tag or a full-text query, with snippets.
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
import type { Note, NoteStores } from './note-store.js';
import { keyField, tagField } from './shared.js';

const SNIPPET_RADIUS = 80;

const recallSchema = ToolSchema.object({
  key: keyField.optional().describe('Return this note in full.'),
  tag: tagField.optional().describe('Only notes with this tag.'),
  query: z.string().trim().min(1).max(500).optional().describe('Words every note must contain.'),
  limit: z.number().int().min(1).max(100).default(10).describe('Most notes.'),
});

/** The `recall` tool. */
export function createRecallTool(stores: NoteStores): AnyToolDefinition {
  return defineTool({
    id: 'recall',
    description: 'Reads notes by key, tag or query; no arguments lists recent notes.',
    inputSchema: recallSchema,
    outputSchema: ToolSchema.object({
      notes: z.array(
        z.object({
          key: z.string(),
          tags: z.array(z.string()),
          updated: z.string(),
          content: z.string().optional(),
          snippet: z.string().optional(),
        }),
      ),
      total: z.number(),
    }),
    metadata: {
      category: 'memory',
      risk: 'LOW',
      tags: ['notes'],
      annotations: ToolHints.readOnly,
    },
    runPolicy: RunPolicies.quickRead,
    async execute({ key, tag, query, limit }, context) {
      const store = stores.for(context.principal);
      if (key !== undefined) {
        const note = await store.read(key);
        if (!note || (tag !== undefined && !note.tags.includes(tag))) {
          const keys = (await store.all()).map((entry) => entry.key);
          return failureResult(ToolErrorCode.NOT_FOUND, `No note with key "${key}".`, {
            field: 'key',
            hint:
              keys.length > 0
                ? `Existing keys include: ${keys.slice(0, 10).join(', ')}. Or search with query.`
                : 'There are no notes yet; save one with memorize.',
          });
        }
        const tagText = note.tags.length > 0 ? ` [${note.tags.join(', ')}]` : '';
        const updated = note.updated ? `\nUpdated: ${note.updated}` : '';
        return successResult(`# ${note.key}${tagText}${updated}\n\n${note.content}`, {
          data: { notes: [note], total: 1 },
        });
      }
      const terms = query ? query.toLowerCase().split(/\s+/).filter(Boolean) : [];
      const matches = (await store.all())
        .filter((note) => tag === undefined || note.tags.includes(tag))
        .map((note) => ({ note, score: scoreNote(note, terms) }))
        .filter(({ score }) => terms.length === 0 || score > 0);
      if (terms.length > 0) matches.sort((a, b) => b.score - a.score);
      const shown = matches.slice(0, limit).map(({ note }) => ({
        key: note.key,
        tags: note.tags,
        updated: note.updated,
        snippet: snippetOf(note.content, terms),
      }));
      if (shown.length === 0) {
        const filters = [tag ? `tag "${tag}"` : '', query ? `query "${query}"` : '']
          .filter(Boolean)
          .join(' and ');
        return successResult(
          filters
            ? `No notes match ${filters}.`
            : 'There are no notes yet; save one with memorize.',
          { data: { notes: [], total: 0 } },
        );
      }
      const lines = shown.map(
        (note) =>
          `- ${note.key}${note.tags.length > 0 ? ` [${note.tags.join(', ')}]` : ''}: ${note.snippet}`,
      );
      const more =
        matches.length > shown.length
          ? `\n(${matches.length - shown.length} more; raise limit or narrow the search.)`
          : '';
      return successResult(`${matches.length} note(s):\n${lines.join('\n')}${more}`, {
        data: { notes: shown, total: matches.length },
      });
    },
  });
}

/** Occurrences of the terms; 0 unless every term appears in the key, tags or content. */
function scoreNote(note: Note, terms: readonly string[]): number {
  if (terms.length === 0) return 1;
  const haystack = `${note.key}\n${note.tags.join(' ')}\n${note.content}`.toLowerCase();
  let score = 0;
  for (const term of terms) {
    let count = 0;
    for (
      let index = haystack.indexOf(term);
      index !== -1;
      index = haystack.indexOf(term, index + 1)
    )
      count += 1;
    if (count === 0) return 0;
    score += count;
  }
  return score;
}

function snippetOf(content: string, terms: readonly string[]): string {
  const lower = content.toLowerCase();
  const first = terms.map((term) => lower.indexOf(term)).find((index) => index >= 0) ?? 0;
  const start = Math.max(0, first - SNIPPET_RADIUS);
  const end = Math.min(content.length, first + SNIPPET_RADIUS);
  const text = content.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${text}${end < content.length ? '…' : ''}`;
}
