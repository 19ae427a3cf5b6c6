import {
  type AnyToolDefinition,
  failureResult,
  handleArgument,
  RunPolicies,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { webPageBlock } from '../../page-text.js';
import { type BrowserToolSettings, defineBrowserTool } from '../browser-tool.js';
import { listTabs, tabLine, takeEventLines } from '../page-result.js';

const showSchema = ToolSchema.object({
  action: z
    .enum(['list', 'select', 'new', 'close'])
    .default('list')
    .describe('select: later calls act on the tab.'),
  tab: handleArgument('Tab id.').optional().describe('Tab id, for select and close.'),
});

/** `browser_show`: lists, selects, opens and closes the tabs of the session. */
export function createShowTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineBrowserTool(settings, {
    id: 'browser_show',
    description: 'Lists tabs, or selects, opens or closes one.',
    inputSchema: showSchema,
    metadata: {
      category: 'browser',
      risk: 'LOW',
      tags: ['browser', 'tabs'],
      annotations: { ...ToolHints.mutating, idempotentHint: true },
    },
    runPolicy: RunPolicies.quickRead,
    async run({ action, tab: tabId }, { session, settings: resolved }) {
      if ((action === 'select' || action === 'close') && tabId === undefined) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `tab: required when action is "${action}"`,
          { field: 'tab', hint: 'Call browser_show with action "list" to see the tab ids.' },
        );
      }
      let summary: string;
      if (action === 'select') {
        const tab = await session.select(tabId as string);
        summary = `Tab ${tab.id} is now in front and active.`;
      } else if (action === 'close') {
        const tab = session.findTab(tabId as string);
        await tab.page.close();
        summary = `Closed tab ${tab.id}.`;
      } else if (action === 'new') {
        const tab = await session.newTab();
        summary = `Opened tab ${tab.id} (blank); browser_navigate opens a page in it.`;
      } else {
        await session.activeTab();
        summary = 'Open tabs:';
      }
      const tabs = await listTabs(session, resolved.redact ?? []);
      const lines = [
        summary,
        ...(action === 'list' ? [] : ['Open tabs:']),
        ...(tabs.length === 0 ? [] : [webPageBlock(tabs.map(tabLine))]),
        ...takeEventLines(session),
      ];
      if (tabs.length === 0) lines.push('  (none; browser_navigate opens one)');
      return { ok: true, content: lines.join('\n'), data: { tabs } };
    },
  });
}
