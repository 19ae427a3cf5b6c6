import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  ToolError,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { BrowserTab } from '../../browser-tab.js';
import { WHOLE_PAGE_VIEW } from '../../snapshot-pages.js';
import { renderSnapshotAsync } from '../../snapshot-render.js';
import { BROWSER_GRANT_GROUP } from '../actions/shared.js';
import { type BrowserToolSettings, defineBrowserTool, maxTokensField } from '../browser-tool.js';
import { showPageWithin, takeEventLines, titleLine } from '../page-result.js';

const navigateSchema = ToolSchema.object({
  url: z.string().max(8_192).optional().describe('http(s) URL, for "open".'),
  action: z.enum(['open', 'back', 'forward', 'reload']).default('open').describe('Action.'),
  newTab: z.boolean().default(false).describe('In a new tab.'),
  maxTokens: maxTokensField,
});

/** Checks a navigation target: the scheme and (after DNS) every address of the host. */
export async function checkNavigationTarget(
  settings: Pick<BrowserToolSettings, 'ssrfGuard' | 'hostPolicy'>,
  raw: string,
  field = 'url',
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolError(
      ToolErrorCode.INVALID_ARGUMENT,
      `${field}: "${raw.slice(0, 200)}" is not an absolute URL`,
      { field, hint: 'Pass a full URL with its scheme, e.g. "https://example.com/".' },
    );
  }
  settings.ssrfGuard.checkUrl(url, field);
  const refusal = settings.hostPolicy?.(url.hostname);
  if (refusal !== undefined) {
    throw new ToolError(ToolErrorCode.PERMISSION_DENIED, `${field}: ${refusal}`, {
      field,
      hint: 'Use another site; only an operator can change the list (packages.app-browser allowedHosts / blockedHosts).',
    });
  }
  await settings.ssrfGuard.resolve(url.hostname);
  return url;
}

/** `browser_navigate`: opens a URL (or goes back, forward, reloads) and shows the page. */
export function createNavigateTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineBrowserTool(settings, {
    id: 'browser_navigate',
    description:
      'Opens a URL (or back, forward, reload); returns the page as an accessibility tree with refs for the action tools, cut at a token budget.',
    inputSchema: navigateSchema,
    metadata: {
      category: 'browser',
      risk: 'MEDIUM',
      tags: ['browser', 'playwright'],
      annotations: { ...ToolHints.mutating, openWorldHint: true },
      grantGroup: BROWSER_GRANT_GROUP,
    },
    runPolicy: RunPolicies.network,
    async run({ url, action, newTab, maxTokens }, { session, context, settings: resolved }) {
      if (action === 'open' && (url === undefined || url.trim() === '')) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          'url: required when action is "open"',
          {
            field: 'url',
            hint: 'Pass the URL to open, or action "back", "forward" or "reload".',
          },
        );
      }
      let target: URL | undefined;
      if (action === 'open') {
        target = await checkNavigationTarget(resolved, url as string);
      }
      const tab: BrowserTab = newTab ? await session.newTab() : await session.activeTab();
      const timeout = resolved.navigationTimeoutMs;
      const notes: string[] = [];
      let status: number | undefined;
      try {
        const response =
          action === 'open'
            ? await tab.page.goto((target as URL).href, { waitUntil: 'load', timeout })
            : action === 'back'
              ? await tab.page.goBack({ waitUntil: 'load', timeout })
              : action === 'forward'
                ? await tab.page.goForward({ waitUntil: 'load', timeout })
                : await tab.page.reload({ waitUntil: 'load', timeout });
        if (!response && (action === 'back' || action === 'forward')) {
          notes.push(`There was no page to go ${action} to; the tab stayed where it was.`);
        }
        status = response?.status();
      } catch (error) {
        if (error instanceof Error && /Download is starting/.test(error.message)) {
          await session.settleDownloads(5_000);
          notes.push(
            'The URL started a download instead of showing a page (browser_download_list tracks it).',
          );
        } else if (error instanceof Error && error.name === 'TimeoutError') {
          notes.push(
            `The page had not finished loading after ${Math.round(timeout / 1000)} s; this is what it shows so far.`,
          );
        } else {
          throw error;
        }
      }
      if (status !== undefined && status >= 400) {
        notes.push(`The server answered HTTP ${status}.`);
      }
      const snapshot = await tab.snapshot(resolved.redact, undefined, context.signal);
      tab.lastSnapshot = snapshot;
      const shown = await showPageWithin({
        settings: resolved,
        tab,
        snapshot,
        maxTokens: maxTokens ?? resolved.maxTokens,
        between: [...notes, ...takeEventLines(session)],
        signal: context.signal,
        render: async (pageTokens) => ({
          rendered: await renderSnapshotAsync(
            snapshot.nodes,
            { maxTokens: pageTokens, pageUrl: snapshot.url },
            context.signal,
          ),
          start: 0,
        }),
      });
      const { rendered, whole } = shown;
      session.snapshotPages.keepCut(
        tab.id,
        rendered,
        WHOLE_PAGE_VIEW,
        titleLine(snapshot.title, snapshot.url),
      );
      return {
        ok: true,
        content: shown.lines.join('\n'),
        data: {
          tab: tab.id,
          url: snapshot.url,
          title: snapshot.title,
          ...(status === undefined ? {} : { status }),
          tokens: shown.tokens,
          ...(rendered.nextCursor === undefined
            ? {}
            : { nextCursor: rendered.nextCursor, page: rendered.page }),
          ...(whole === undefined ? {} : { savedTo: whole.path }),
        },
        ...(whole === undefined ? {} : { artifacts: [whole.artifact] }),
      };
    },
  });
}
