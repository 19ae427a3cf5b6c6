// `shortcut_list`: the defined shortcuts and suggestions mined from recent traces.
import type { ToolExecutor } from '@toolsys/core-tool-registry';
import {
  type AnyToolDefinition,
  defineTool,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
  type ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import { ShortcutSuggester } from '../shortcuts/shortcut-suggester.js';

/** The `shortcut_list` tool; suggestions come from `traces` when given. */
export function createShortcutListTool(
  executor: ToolExecutor,
  traces: ToolTraceRecorder | undefined,
): AnyToolDefinition {
  const suggester = new ShortcutSuggester();
  return defineTool({
    id: 'shortcut_list',
    description: 'Lists shortcuts and suggests new ones.',
    inputSchema: ToolSchema.empty(),
    metadata: { category: 'orchestration', risk: 'LOW', annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    execute(_args, context) {
      const shortcuts = executor.registry
        .list(context.principal)
        .filter((tool) => tool.id.startsWith('shortcut.'))
        .map((tool) => ({
          id: tool.id,
          risk: tool.metadata.risk,
          description: tool.description,
          params: Object.keys(
            ((tool.inputSchema.jsonSchema as { properties?: object }).properties ?? {}) as object,
          ),
        }));
      const suggestions = traces ? suggester.suggest(traces.spans()) : [];
      const lines: string[] = [];
      if (shortcuts.length === 0) lines.push('No shortcuts defined yet.');
      else {
        lines.push(`${shortcuts.length} shortcut(s):`);
        for (const shortcut of shortcuts) {
          lines.push(
            `- ${shortcut.id} (${shortcut.risk}; params: ${shortcut.params.join(', ') || 'none'}): ${shortcut.description}`,
          );
        }
      }
      if (suggestions.length > 0) {
        lines.push('Suggested shortcuts (define with shortcut_define):');
        for (const suggestion of suggestions) {
          lines.push(
            `- ${suggestion.tools.join(' → ')} (ran back to back ${suggestion.count} times)`,
          );
        }
      }
      return successResult(lines.join('\n'), { data: { shortcuts, suggestions } });
    },
  });
}
