import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolSchema } from '@toolsys/core-tool-registry';

/**
 * Imported validators of remote tools' input schemas, built once per catalog entry. Schemas are
 * imported leniently (`ToolSchema.fromRendered`): a schema that cannot be understood is not
 * enforced rather than blocking the tool.
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
}
