// What the structured tools share: their metadata, the group helper that declares it once, and the
// `limit` field of the query tools.
import {
  type AnyToolDefinition,
  defineTool,
  RunPolicies,
  type ToolDefinition,
  type ToolMetadataInput,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';

/**
 * Metadata shared by the structured v2 tools: category `data`, LOW risk, read-only, offline.
 * Pass `idempotent: false` for tools whose answer changes on every call (random, uuid).
 */
export function structuredMetadata(
  tags: readonly string[],
  options: { idempotent?: boolean } = {},
): ToolMetadataInput {
  return {
    category: 'data',
    risk: 'LOW',
    tags,
    annotations: {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: options.idempotent ?? true,
      openWorldHint: false,
      sensitiveAction: false,
    },
  };
}

/** A structured tool's declaration: the tool contract without metadata and run policy. */
export type StructuredToolDefinition<TArgs> = Omit<
  ToolDefinition<TArgs>,
  'metadata' | 'runPolicy'
> & {
  /** Search tags of the tool. */
  tags: readonly string[];
  /** False for tools whose answer changes on every call. Default true. */
  idempotent?: boolean;
};

/**
 * The group helper: a structured tool with {@link structuredMetadata} for its tags and the
 * `quickRead` run policy.
 */
export function defineStructuredTool<TArgs>(
  definition: StructuredToolDefinition<TArgs>,
): AnyToolDefinition {
  const { tags, idempotent, ...tool } = definition;
  return defineTool<TArgs>({
    ...tool,
    metadata: structuredMetadata(tags, idempotent === undefined ? {} : { idempotent }),
    runPolicy: RunPolicies.quickRead,
  });
}

/** The `limit` argument of a query tool: at most this many `noun` (1-10000), default 100. */
export const queryLimitField = (noun: string) =>
  z.number().int().min(1).max(10_000).default(100).describe(`Most ${noun}.`);
