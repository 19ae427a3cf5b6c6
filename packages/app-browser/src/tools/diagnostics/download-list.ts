import { type AnyToolDefinition, RunPolicies, ToolSchema } from '@toolsys/core-tool-registry';
import { type BrowserToolSettings, defineBrowserTool } from '../browser-tool.js';
import { READ_METADATA, redactUrl } from './shared.js';

const downloadsSchema = ToolSchema.object({});

/** `browser_download_list`: the downloads of the session. */
export function createDownloadListTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineBrowserTool(settings, {
    id: 'browser_download_list',
    description: "Lists this session's downloads.",
    inputSchema: downloadsSchema,
    metadata: READ_METADATA,
    runPolicy: RunPolicies.quickRead,
    async run(_args, { session }) {
      await session.settleDownloads(1_000);
      const downloads = session.downloads;
      const lines =
        downloads.length === 0
          ? ['No downloads in this session.']
          : [
              `${downloads.length} download${downloads.length === 1 ? '' : 's'}:`,
              ...downloads.map(
                (entry) =>
                  `#${entry.id} ${entry.fileName}: ${entry.state}${entry.size !== undefined ? `, ${entry.size.toLocaleString('en-US')} bytes` : ''}${entry.path ? `, saved as ${entry.path}` : ''}${entry.renamedFrom ? ` (renamed: ${entry.renamedFrom} already exists)` : ''}${entry.failure ? ` (${entry.failure})` : ''} — from ${redactUrl(entry.url)}`,
              ),
            ];
      if (session.unlistedDownloads > 0) {
        lines.push(
          `${session.unlistedDownloads} more downloads the page started were refused and are not listed (maxDownloads).`,
        );
      }
      return {
        ok: true,
        content: lines.join('\n'),
        data: {
          ...(session.unlistedDownloads > 0 ? { unlisted: session.unlistedDownloads } : {}),
          downloads: downloads.map((entry) => ({
            id: entry.id,
            fileName: entry.fileName,
            state: entry.state,
            url: redactUrl(entry.url),
            tab: entry.tab,
            ...(entry.path === undefined ? {} : { path: entry.path }),
            ...(entry.renamedFrom === undefined ? {} : { renamedFrom: entry.renamedFrom }),
            ...(entry.size === undefined ? {} : { size: entry.size }),
            ...(entry.failure === undefined ? {} : { failure: entry.failure }),
          })),
        },
      };
    },
  });
}
