import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type AnyToolDefinition, RunPolicies, ToolSchema } from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { artifactName } from '../../artifact-name.js';
import {
  type BrowserToolSettings,
  defineBrowserTool,
  ensureSnapshot,
  pickTab,
  tabField,
} from '../browser-tool.js';
import { READ_METADATA } from './shared.js';

/** Full-page screenshots stop at this height, in CSS pixels (size cap). */
const MAX_FULL_PAGE_HEIGHT = 8_000;

const screenshotSchema = ToolSchema.object({
  tab: tabField,
  ref: z.string().max(40).optional().describe('Only this element.'),
  fullPage: z.boolean().default(false).describe('Whole page, not the viewport.'),
});

/** `browser_screenshot`: a PNG of the viewport, the whole page or one element, saved to a file. */
export function createScreenshotTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineBrowserTool(settings, {
    id: 'browser_screenshot',
    description: 'Saves a PNG of the viewport, page or an element; returns its path.',
    inputSchema: screenshotSchema,
    metadata: {
      ...READ_METADATA,
      tags: ['browser', 'screenshot'],
      annotations: { ...READ_METADATA.annotations, idempotentHint: false },
    },
    runPolicy: RunPolicies.quickRead,
    async run({ tab: tabId, ref, fullPage }, { session, settings: resolved }) {
      const tab = await pickTab(session, tabId);
      await ensureSnapshot(tab, resolved);
      const directory = join(resolved.artifactsDir, 'screenshots');
      await mkdir(directory, { recursive: true });
      const name = `${artifactName(tab.id, ref)}.png`;
      const path = join(directory, name);
      let cutNote = '';
      if (ref !== undefined) {
        const locator = tab.locate(ref);
        await locator.screenshot({ path, timeout: resolved.actionTimeoutMs });
      } else {
        let clip: { x: number; y: number; width: number; height: number } | undefined;
        if (fullPage) {
          const extent = await tab.page.evaluate(() => ({
            width: document.documentElement.scrollWidth,
            height: document.documentElement.scrollHeight,
          }));
          if (extent.height > MAX_FULL_PAGE_HEIGHT) {
            clip = { x: 0, y: 0, width: extent.width, height: MAX_FULL_PAGE_HEIGHT };
            cutNote = ` (the page is ${extent.height.toLocaleString('en-US')} px tall; the first ${MAX_FULL_PAGE_HEIGHT.toLocaleString('en-US')} px were captured)`;
          }
        }
        const buffer = await tab.page.screenshot({
          fullPage,
          ...(clip === undefined ? {} : { clip }),
          timeout: resolved.actionTimeoutMs,
        });
        await writeFile(path, buffer);
      }
      const size = (await stat(path)).size;
      const what = ref
        ? `element ${ref}`
        : fullPage
          ? `the whole page${cutNote}`
          : 'the visible viewport';
      return {
        ok: true,
        content: `Saved a screenshot of ${what} of tab ${tab.id} (${size.toLocaleString('en-US')} bytes): ${path}`,
        data: { tab: tab.id, path, bytes: size, mimeType: 'image/png' },
        artifacts: [
          {
            path,
            mimeType: 'image/png',
            description: `A screenshot of ${what} of tab ${tab.id} (${size.toLocaleString('en-US')} bytes)`,
          },
        ],
      };
    },
  });
}
