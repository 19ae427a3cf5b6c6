import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AnyToolDefinition,
  RunPolicies,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { artifactName } from '../artifact-name.js';
import type { NetworkEntry } from '../browser-session.js';
import { cleanPageLine, scrubSecrets, webPageBlock } from '../page-text.js';
import { type BrowserToolSettings, defineBrowserTool, takeEventLines } from './browser-tool.js';
import { tabLine } from './navigation.js';
import { pickTab, tabField } from './page-view.js';

const READ_METADATA = {
  category: 'browser',
  risk: 'LOW',
  tags: ['browser', 'diagnostics'],
  annotations: ToolHints.readOnly,
} as const;

const summarySchema = ToolSchema.object({});

const networkSchema = ToolSchema.object({
  filter: z
    .string()
    .max(500)
    .optional()
    .describe('Only requests whose URL contains this text (case-insensitive).'),
  onlyFailed: z
    .boolean()
    .default(false)
    .describe('Only requests that failed or answered with HTTP 400 or more.'),
  resourceType: z
    .enum(['document', 'script', 'stylesheet', 'image', 'font', 'xhr', 'fetch', 'media', 'other'])
    .optional()
    .describe('Only requests of this type.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(200)
    .default(30)
    .describe('Most recent requests shown (1-200).'),
});

const dumpSchema = ToolSchema.object({
  tab: tabField,
});

const downloadsSchema = ToolSchema.object({});

/** A URL as shown in logs: no credentials, query values longer than 40 characters shortened. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw.slice(0, 300);
  }
  url.username = '';
  url.password = '';
  for (const [key, value] of [...url.searchParams]) {
    if (/token|key|secret|password|auth|session|sig/i.test(key))
      url.searchParams.set(key, '[redacted]');
    else if (value.length > 40) url.searchParams.set(key, `${value.slice(0, 20)}…`);
  }
  const text = url.href;
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** A request's URL as shown: secrets replaced first (before any shortening), then {@link redactUrl}. */
function shownUrl(url: string, secrets: readonly string[]): string {
  return cleanPageLine(redactUrl(scrubSecrets(url, secrets)), [], 400);
}

function formatRequest(entry: NetworkEntry, secrets: readonly string[]): string {
  const status =
    entry.failure !== undefined
      ? `FAILED ${entry.failure}`
      : entry.status !== undefined
        ? String(entry.status)
        : 'pending';
  const size = entry.size !== undefined ? ` ${entry.size.toLocaleString('en-US')} B` : '';
  const time = entry.durationMs !== undefined ? ` ${entry.durationMs} ms` : '';
  return `#${entry.id} ${cleanPageLine(entry.method, [], 20)} ${shownUrl(entry.url, secrets)} → ${cleanPageLine(status, [], 200)} [${entry.resourceType}]${size}${time} (${entry.tab})`;
}

function isFailed(entry: NetworkEntry): boolean {
  return entry.failure !== undefined || (entry.status !== undefined && entry.status >= 400);
}

/** `browser_context_summary`, `browser_network_log`, `browser_debug_dump`, `browser_download_list`. */
export function createDiagnosticTools(settings: BrowserToolSettings): AnyToolDefinition[] {
  return [
    defineBrowserTool(settings, {
      id: 'browser_context_summary',
      description:
        'Summarises the browser state of this session in a few lines: open tabs with URL and title, the active tab, console errors, failed requests, dialogs seen and downloads. Cheap; call it to get your bearings before deciding what to read with browser_snapshot.',
      inputSchema: summarySchema,
      metadata: READ_METADATA,
      runPolicy: RunPolicies.quickRead,
      async run(_args, { session, settings: resolved }) {
        const open = session.openTabs();
        const active = open.length > 0 ? await session.activeTab() : undefined;
        const tabs = await Promise.all(
          open.map(async (tab) => ({
            id: tab.id,
            url: cleanPageLine(tab.page.url(), resolved.redact ?? [], 2_000),
            title: cleanPageLine(await tab.page.title().catch(() => ''), resolved.redact ?? []),
            active: tab === active,
          })),
        );
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
    }),
    defineBrowserTool(settings, {
      id: 'browser_network_log',
      description:
        'Lists the most recent requests of this session (a bounded ring, oldest dropped first): method, URL, status or failure, type, size, time and tab. Filter by URL text, type, or failed only. Headers, cookies and bodies are never shown; query values named like tokens or keys are redacted.',
      inputSchema: networkSchema,
      metadata: READ_METADATA,
      runPolicy: RunPolicies.quickRead,
      async run({ filter, onlyFailed, resourceType, limit }, { session, settings: resolved }) {
        const needle = filter?.toLowerCase();
        const secrets = resolved.redact ?? [];
        // The filter searches the URL as shown (redacted), so a match never tells what is hidden.
        const matching = session.network.filter(
          (entry) =>
            (needle === undefined || shownUrl(entry.url, secrets).toLowerCase().includes(needle)) &&
            (!onlyFailed || isFailed(entry)) &&
            (resourceType === undefined ||
              entry.resourceType === resourceType ||
              (resourceType === 'other' &&
                ![
                  'document',
                  'script',
                  'stylesheet',
                  'image',
                  'font',
                  'xhr',
                  'fetch',
                  'media',
                ].includes(entry.resourceType))),
        );
        const shown = matching.slice(-limit);
        const lines = [
          `${matching.length} request${matching.length === 1 ? '' : 's'} match${matching.length === 1 ? 'es' : ''}${shown.length < matching.length ? `; the last ${shown.length} shown` : ''}${session.droppedRequests > 0 ? ` (${session.droppedRequests} older requests were dropped from the log)` : ''}.`,
          ...(shown.length === 0
            ? []
            : [webPageBlock(shown.map((entry) => formatRequest(entry, secrets)))]),
        ];
        if (matching.length === 0 && session.network.length > 0) {
          lines.push('Try without filter, onlyFailed or resourceType.');
        }
        return {
          ok: true,
          content: lines.join('\n'),
          data: {
            total: matching.length,
            dropped: session.droppedRequests,
            requests: shown.map((entry) => ({
              id: entry.id,
              method: cleanPageLine(entry.method, [], 20),
              url: shownUrl(entry.url, secrets),
              resourceType: entry.resourceType,
              tab: entry.tab,
              ...(entry.status === undefined ? {} : { status: entry.status }),
              ...(entry.size === undefined ? {} : { size: entry.size }),
              ...(entry.durationMs === undefined ? {} : { durationMs: entry.durationMs }),
              ...(entry.failure === undefined
                ? {}
                : { failure: cleanPageLine(entry.failure, [], 200) }),
            })),
          },
        };
      },
    }),
    defineBrowserTool(settings, {
      id: 'browser_debug_dump',
      description:
        'Writes the debugging state of a tab to files under the data directory and returns their paths: console messages and page errors, failed requests, the page HTML and a screenshot. Use it when a page misbehaves; browser_context_summary gives the counts inline.',
      inputSchema: dumpSchema,
      metadata: {
        ...READ_METADATA,
        annotations: { ...READ_METADATA.annotations, idempotentHint: false },
      },
      runPolicy: RunPolicies.quickRead,
      async run({ tab: tabId }, { session, settings: resolved }) {
        const tab = await pickTab(session, tabId);
        const directory = join(resolved.artifactsDir, 'dumps', artifactName(tab.id));
        await mkdir(directory, { recursive: true });
        const consoleLines = session.console
          .filter((entry) => entry.tab === tab.id)
          .map((entry) => `${new Date(entry.at).toISOString()} [${entry.type}] ${entry.text}`);
        const failed = session.network.filter((entry) => entry.tab === tab.id && isFailed(entry));
        const files = {
          console: join(directory, 'console.log'),
          failedRequests: join(directory, 'failed-requests.log'),
          html: join(directory, 'page.html'),
          screenshot: join(directory, 'screenshot.png'),
        };
        // The files get the same redaction as every result; the screenshot cannot.
        const scrub = (text: string) => scrubSecrets(text, resolved.redact ?? []);
        await writeFile(files.console, scrub(`${consoleLines.join('\n')}\n`));
        await writeFile(
          files.failedRequests,
          scrub(
            `${failed.map((entry) => formatRequest(entry, resolved.redact ?? [])).join('\n')}\n`,
          ),
        );
        await writeFile(files.html, scrub(await tab.page.content()));
        const screenshot = await tab.page
          .screenshot({ timeout: resolved.actionTimeoutMs })
          .catch(() => undefined);
        if (screenshot) await writeFile(files.screenshot, screenshot);
        const errors = consoleLines.filter((line) => / \[(error|pageerror)\] /.test(line)).length;
        const lines = [
          `Wrote the debug state of tab ${tab.id} (its address between the markers below): ${consoleLines.length} console messages (${errors} errors), ${failed.length} failed requests.`,
          webPageBlock([cleanPageLine(tab.page.url(), resolved.redact ?? [], 2_000)]),
          `console: ${files.console}`,
          `failed requests: ${files.failedRequests}`,
          `html: ${files.html}`,
          screenshot ? `screenshot: ${files.screenshot}` : 'screenshot: could not be taken',
        ];
        return {
          ok: true,
          content: lines.join('\n'),
          data: {
            tab: tab.id,
            consoleMessages: consoleLines.length,
            errors,
            failedRequests: failed.length,
            files: screenshot ? files : { ...files, screenshot: undefined },
          },
          artifacts: [
            {
              path: files.console,
              mimeType: 'text/plain',
              description: `Console messages and page errors of tab ${tab.id}`,
            },
            {
              path: files.failedRequests,
              mimeType: 'text/plain',
              description: `Failed requests of tab ${tab.id}`,
            },
            { path: files.html, mimeType: 'text/html', description: `The HTML of tab ${tab.id}` },
            ...(screenshot
              ? [
                  {
                    path: files.screenshot,
                    mimeType: 'image/png',
                    description: `A screenshot of tab ${tab.id}`,
                  },
                ]
              : []),
          ],
        };
      },
    }),
    defineBrowserTool(settings, {
      id: 'browser_download_list',
      description:
        'Lists the downloads of this session with their state (in_progress, completed, failed, refused), size and the path of the saved file under the workspace. Downloads start when a click or navigation triggers one; the action result announces it. A download never replaces a file: when the name is taken it is saved under a free one (report-2.pdf) and the list says so. Downloads past the size, count or total caps are stopped, removed and listed as refused with the reason.',
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
    }),
  ];
}
