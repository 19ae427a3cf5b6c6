import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import type { BrowserToolSettings } from '../browser-tool.js';
import { createContextSummaryTool } from './context-summary.js';
import { createDebugDumpTool } from './debug-dump.js';
import { createDownloadListTool } from './download-list.js';
import { createNetworkLogTool } from './network-log.js';

/** `browser_context_summary`, `browser_network_log`, `browser_debug_dump`, `browser_download_list`. */
export function createDiagnosticTools(settings: BrowserToolSettings): AnyToolDefinition[] {
  return [
    createContextSummaryTool(settings),
    createNetworkLogTool(settings),
    createDebugDumpTool(settings),
    createDownloadListTool(settings),
  ];
}
