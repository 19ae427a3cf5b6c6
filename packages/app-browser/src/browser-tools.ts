import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import { createActionTools } from './tools/actions/index.js';
import { type BrowserToolsOptions, resolveSettings } from './tools/browser-tool.js';
import { createDiagnosticTools } from './tools/diagnostics/index.js';
import { createNavigationTools } from './tools/navigation/index.js';
import { createPageViewTools } from './tools/page-view/index.js';

/** The ids of the fifteen browser tools, in registration order. */
export const BROWSER_TOOL_IDS: readonly string[] = [
  'browser_navigate',
  'browser_show',
  'browser_snapshot',
  'browser_screenshot',
  'browser_click',
  'browser_input',
  'browser_scroll',
  'browser_select',
  'browser_toggle',
  'browser_date_input',
  'browser_file_upload',
  'browser_context_summary',
  'browser_network_log',
  'browser_debug_dump',
  'browser_download_list',
];

/**
 * The fifteen `browser_*` tools over one {@link BrowserManager}. Cheap: building them starts no
 * browser; the first call does.
 */
export function createBrowserTools(options: BrowserToolsOptions): AnyToolDefinition[] {
  const settings = resolveSettings(options);
  return [
    ...createNavigationTools(settings),
    ...createPageViewTools(settings),
    ...createActionTools(settings),
    ...createDiagnosticTools(settings),
  ];
}
