import type { Tool } from '@modelcontextprotocol/client';
import { type ToolFailure, ToolSchema } from '@toolsys/core-tool-registry';

/**
 * Imported validators of remote tools' input schemas, built once per catalog entry. Schemas are
 * imported leniently (`ToolSchema.fromRendered`): a schema that cannot be understood is not
 * enforced rather than blocking the tool. Plain schemas (the common case) are checked by
 * `ToolSchema`'s precompiled fast path.
 */
export class RemoteSchemaCache {
  readonly #schemas = new WeakMap<Tool, ToolSchema<Record<string, unknown>>>();

  /** The validator of a remote tool. */
  get(tool: Tool): ToolSchema<Record<string, unknown>> {
    let schema = this.#schemas.get(tool);
    if (!schema) {
      schema = ToolSchema.fromRendered(tool.inputSchema);
      this.#schemas.set(tool, schema);
    }
    return schema;
  }

  /**
   * Checks arguments against a remote tool's input schema: undefined when they conform, else the
   * validator's INVALID_ARGUMENT failure.
   */
  check(tool: Tool, args: Record<string, unknown>): ToolFailure | undefined {
    const parsed = this.get(tool).parse(args);
    return parsed.ok ? undefined : parsed.failure;
  }
}
