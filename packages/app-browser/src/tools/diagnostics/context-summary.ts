import { type AnyToolDefinition, RunPolicies, ToolSchema } from '@toolsys/core-tool-registry';
import { cleanPageLine, webPageBlock } from '../../page-text.js';
import { type BrowserToolSettings, defineBrowserTool } from '../browser-tool.js';
import { listTabs, tabLine, takeEventLines } from '../page-result.js';
import { formatRequest, isFailed, READ_METADATA } from './shared.js';

const summarySchema = ToolSchema.object({});

/** `browser_context_summary`: the browser state of the session in a few lines. */
export function createContextSummaryTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineBrowserTool(settings, {
    id: 'browser_context_summary',
    description: 'Summary of the browser session: tabs, errors, failed requests, dialogs.',
    inputSchema: summarySchema,
    metadata: READ_METADATA,
    runPolicy: RunPolicies.quickRead,
    async run(_args, { session, settings: resolved }) {
      const tabs = await listTabs(session, resolved.redact ?? []);
      const errors = session.console.filter(
        (entry) => entry.type === 'error' || entry.type === 'pageerror',
      );
      const failed = session.network.filter(isFailed);
      const secrets = resolved.redact ?? [];
      const downloads = session.downloads;
      // The counts are the tools' own lines; what pages wrote (titles, URLs, messages, dialog
      // texts) is cleaned to single lines inside one web-page block.
      const lines = [`Tabs (${tabs.length}):`];
      if (tabs.length === 0) lines.push('  none; browser_navigate opens one');
      else lines.push(webPageBlock(tabs.map(tabLine)));
      lines.push(`Console errors: ${errors.length}`);
      if (errors.length > 0) {
        lines.push(
          webPageBlock(
            errors
              .slice(-5)
              .map((entry) => `  [${entry.tab}] ${cleanPageLine(entry.text, secrets, 200)}`),
          ),
        );
      }
      lines.push(`Failed requests: ${failed.length}`);
      if (failed.length > 0) {
        lines.push(
          webPageBlock(failed.slice(-5).map((entry) => `  ${formatRequest(entry, secrets)}`)),
        );
      }
      lines.push(`Dialogs: ${session.dialogs.length}`);
      if (session.dialogs.length > 0) {
        lines.push(webPageBlock(session.dialogs.slice(-3).map((dialog) => `  ${dialog}`)));
      }
      lines.push(
        `Downloads: ${downloads.length}${downloads.length > 0 ? ' (browser_download_list shows them)' : ''}`,
      );
      lines.push(...takeEventLines(session));
      return {
        ok: true,
        content: lines.join('\n'),
        data: {
          tabs,
          consoleErrors: errors.length,
          failedRequests: failed.length,
          dialogs: session.dialogs.length,
          downloads: downloads.length,
        },
      };
    },
  });
}
