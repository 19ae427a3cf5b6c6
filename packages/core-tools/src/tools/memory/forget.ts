// forget: deletes a note by key.
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
import type { NoteStores } from './note-store.js';
import { keyField } from './shared.js';

const forgetSchema = ToolSchema.object({ key: keyField.describe('Note key.') });

/** The `forget` tool. */
export function createForgetTool(stores: NoteStores): AnyToolDefinition {
  return defineTool({
    id: 'forget',
    description: 'Deletes a saved note by key.',
    inputSchema: forgetSchema,
    metadata: {
      category: 'memory',
      risk: 'MEDIUM',
      tags: ['notes'],
      annotations: { ...ToolHints.destructive, idempotentHint: true },
    },
    runPolicy: RunPolicies.mutating,
    async execute({ key }, context) {
      const store = stores.for(context.principal);
      const removed = await store.update(key, () => store.remove(key));
      if (!removed) {
        return failureResult(ToolErrorCode.NOT_FOUND, `No note with key "${key}".`, {
          field: 'key',
          hint: 'Call recall without arguments to list the keys.',
        });
      }
      return successResult(`Forgot note "${key}".`, { data: { key } });
    },
  });
}
