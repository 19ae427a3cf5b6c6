// What the memory tools share: their options, the read-only metadata, the wrapper that opens the
// store and turns its errors into results, and text bounds.
import {
  type CallPrincipal,
  cancelledFailure,
  defineTool,
  failureResult,
  type ToolContext,
  type ToolDefinition,
  ToolErrorCode,
  type ToolFailure,
  ToolHints,
  type ToolReturn,
} from '@toolsys/core-tool-registry';
import type { MemoryStore } from '../memory-store.js';
import { MemoryStoreError } from '../memory-store-error.js';

/** Options for {@link createMemoryTools}. */
export interface MemoryToolsOptions {
  /**
   * The store the tools read, or a function opening the caller's store on its first call (so
   * that building the tools loads no SQLite; `MemoryStores.for` gives each principal its own).
   * Whoever opened it closes it; the tools never do.
   */
  store: MemoryStore | OpenMemoryStore;
  /** Clock for time windows, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** Opens (or returns) the memory store of the calling principal. */
export type OpenMemoryStore = (principal?: CallPrincipal) => MemoryStore;

export const MAX_TEXT_IN_RESULT = 1_000;
export const MINUTE_MS = 60_000;

export const READ_ONLY_METADATA = {
  category: 'memory',
  risk: 'LOW',
  tags: ['memory', 'sqlite'],
  annotations: ToolHints.readOnly,
} as const;

/**
 * Declares a memory tool whose handler runs only on an open store and turns the store's expected
 * failures (bad query, bad input, not found) into results the model can act on.
 */
export function defineMemoryTool<TArgs>(
  openStore: OpenMemoryStore,
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
        store = openStore(context.principal);
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

/** The INVALID_ARGUMENT result naming `field`, with the next step as `hint` when given. */
export function invalidArgument(field: string, message: string, hint?: string): ToolFailure {
  return failureResult(ToolErrorCode.INVALID_ARGUMENT, message, {
    field,
    ...(hint === undefined ? {} : { hint }),
  });
}

export function storeFailure(error: MemoryStoreError): ToolReturn {
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

export function clip(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
