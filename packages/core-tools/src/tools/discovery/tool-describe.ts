// `tool_describe`: one tool's description, risk, hints and argument schema.
import type { AnyToolDefinition, ToolExecutor } from '@toolsys/core-tool-registry';
import {
  defineTool,
  lookupTool,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
  ToolSuggester,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';

const suggester = new ToolSuggester();

/** The `tool_describe` tool. */
export function describeTool(executor: ToolExecutor): AnyToolDefinition {
  return defineTool({
    id: 'tool_describe',
    description:
      "Returns one tool's full description, risk, hints and the JSON Schema of its arguments. Call it before tool_call for a tool you have not used yet.",
    inputSchema: ToolSchema.object({
      id: z.string().min(1).max(200).describe('The tool id, as tool_search returned it.'),
    }),
    metadata: {
      category: 'system',
      risk: 'LOW',
      annotations: ToolHints.readOnly,
    },
    runPolicy: RunPolicies.quickRead,
    execute({ id }, context) {
      const found = lookupTool(executor.registry, suggester, id, context.principal);
      if (!found.ok) return found.failure;
      const { tool } = found;
      const description = {
        id: tool.id,
        description: tool.description,
        category: tool.metadata.category,
        risk: tool.metadata.risk,
        annotations: tool.metadata.annotations,
        inputSchema: tool.inputSchema.jsonSchema,
      };
      return successResult(JSON.stringify(description, null, 2), { data: description });
    },
  });
}
