// memorize: saves a note under a key, replacing or appending.
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

const memorizeSchema = ToolSchema.object({
  key: keyField,
  content: z.string().min(1).describe('Markdown text.'),
  tags: z.array(tagField).max(20).optional().describe('Labels.'),
  mode: z.enum(['replace', 'append']).default('replace').describe('Replace or append.'),
});

/** The `memorize` tool. */
export function createMemorizeTool(stores: NoteStores): AnyToolDefinition {
  return defineTool({
    id: 'memorize',
    description: 'Saves a note under a key with tags; the same key replaces or appends.',
    inputSchema: memorizeSchema,
    outputSchema: ToolSchema.object({
      key: z.string(),
      tags: z.array(z.string()),
      length: z.number(),
      created: z.boolean(),
    }),
    metadata: {
      category: 'memory',
      risk: 'LOW',
      tags: ['notes'],
      annotations: { ...ToolHints.mutating, idempotentHint: true },
    },
    runPolicy: RunPolicies.mutating,
    execute: ({ key, content, tags, mode }, context) => {
      const store = stores.for(context.principal);
      return store.update(key, async () => {
        const existing = await store.read(key);
        const text = mode === 'append' && existing ? `${existing.content}\n\n${content}` : content;
        if (text.length > store.maxNoteLength) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `content: the note would be ${text.length} characters, more than the limit of ${store.maxNoteLength}.`,
            { field: 'content', hint: 'Shorten it or split it across several keys.' },
          );
        }
        const now = store.now();
        const note: Note = {
          key,
          tags: [...new Set(tags ?? existing?.tags ?? [])],
          created: existing?.created || now,
          updated: now,
          content: text,
        };
        await store.write(note);
        const verb = existing ? (mode === 'append' ? 'Appended to' : 'Updated') : 'Memorized';
        const tagText = note.tags.length > 0 ? `, tags: ${note.tags.join(', ')}` : '';
        return successResult(`${verb} note "${key}" (${text.length} characters${tagText}).`, {
          data: { key, tags: note.tags, length: text.length, created: !existing },
        });
      });
    },
  });
}
