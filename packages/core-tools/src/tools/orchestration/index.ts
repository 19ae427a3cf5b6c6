// Builds the orchestration group and registers again the shortcuts persisted on disk.
import type { ToolExecutor } from '@toolsys/core-tool-registry';
import {
  type AnyToolDefinition,
  maxRisk,
  SYSTEM_CLOCK,
  TOOL_RISKS,
  ToolBatchRunner,
  type ToolRisk,
  ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import { principalOfKey } from '../defined-by.js';
import {
  parseShortcutDefinition,
  type ShortcutDefinition,
} from '../shortcuts/shortcut-definition.js';
import { ShortcutStore } from '../shortcuts/shortcut-store.js';
import { compileShortcut } from '../shortcuts/shortcut-tool.js';
import { createJsonTransformTool } from './json-transform.js';
import type { OrchestrationToolsOptions } from './shared.js';
import { createShortcutDefineTool } from './shortcut-define.js';
import { createShortcutListTool } from './shortcut-list.js';
import { createShortcutRunTool } from './shortcut-run.js';
import { createBatchTool } from './tool-batch-run.js';
import { createVersionCompareTool } from './version-compare.js';
import { createWaitTool } from './wait.js';

export { createJsonTransformTools } from './json-transform.js';
export type { OrchestrationToolsOptions } from './shared.js';
export { MAX_WAIT_SECONDS } from './wait.js';

/**
 * `wait`, `json_transform`, `version_compare`, `tool_batch_run` and the shortcut tools, plus one
 * tool per shortcut persisted in `shortcutDirectory` (registered again at start).
 */
export function createOrchestrationTools(options: OrchestrationToolsOptions): AnyToolDefinition[] {
  const { executor } = options;
  const clock = options.clock ?? SYSTEM_CLOCK;
  const runner = new ToolBatchRunner({ executor, clock });
  const store = new ShortcutStore(options.shortcutDirectory);
  const traces =
    options.traces ??
    ((executor as { traces?: unknown }).traces instanceof ToolTraceRecorder
      ? ((executor as { traces?: unknown }).traces as ToolTraceRecorder)
      : undefined);
  return [
    createWaitTool(clock),
    createJsonTransformTool(),
    createVersionCompareTool(),
    createBatchTool(runner),
    createShortcutDefineTool(executor, runner, store),
    createShortcutListTool(executor, traces),
    createShortcutRunTool(executor),
    ...loadPersistedShortcuts(executor, runner, store),
  ];
}

function loadPersistedShortcuts(
  executor: ToolExecutor,
  runner: ToolBatchRunner,
  store: ShortcutStore,
): AnyToolDefinition[] {
  const tools: AnyToolDefinition[] = [];
  for (const { definition: raw, definedBy } of store.loadRaw().definitions) {
    const definer = principalOfKey(definedBy);
    const parsed = parseShortcutDefinition(raw, {
      registry: executor.registry,
      allowUnknownTools: true,
      principal: definer,
    });
    if (!parsed.ok) continue;
    const storedRisk = (raw as { risk?: unknown }).risk;
    const risks: ToolRisk[] = [
      parsed.definition.risk,
      ...parsed.definition.steps.map(
        // A step's tool may register later (another package): until then it counts as HIGH.
        (step) => executor.registry.get(step.tool, definer)?.metadata.risk ?? 'HIGH',
      ),
    ];
    if (TOOL_RISKS.includes(storedRisk as ToolRisk)) risks.push(storedRisk as ToolRisk);
    const definition: ShortcutDefinition = { ...parsed.definition, risk: maxRisk(risks) };
    tools.push(compileShortcut(definition, { runner, registry: executor.registry, definedBy }));
  }
  return tools;
}
