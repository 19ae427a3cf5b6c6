import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type AnyToolDefinition, RunPolicies, ToolSchema } from '@toolsys/core-tool-registry';
import { artifactName } from '../../artifact-name.js';
import { cleanPageLine, scrubSecrets, webPageBlock } from '../../page-text.js';
import { type BrowserToolSettings, defineBrowserTool, pickTab, tabField } from '../browser-tool.js';
import { formatRequest, isFailed, READ_METADATA } from './shared.js';

const dumpSchema = ToolSchema.object({
  tab: tabField,
});

/** `browser_debug_dump`: a tab's debugging state written to files. */
export function createDebugDumpTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineBrowserTool(settings, {
    id: 'browser_debug_dump',
    description: "Saves a tab's console, errors, requests, HTML and screenshot to files.",
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
        scrub(`${failed.map((entry) => formatRequest(entry, resolved.redact ?? [])).join('\n')}\n`),
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
  });
}
