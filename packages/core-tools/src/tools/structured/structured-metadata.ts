import type { ToolMetadataInput } from '@toolsys/core-tool-registry';

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
