import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserManager, createBrowserTools } from '@toolsys/app-browser';
import { ToolRegistry } from '@toolsys/core-tool-registry';
import { SsrfGuard } from '@toolsys/platform';

// Building the tools starts no browser: Chromium launches on the first call (see below).
const workspaceRoot = mkdtempSync(join(tmpdir(), 'browser-example-'));
const ssrfGuard = new SsrfGuard({ allowPrivateNetwork: ['127.0.0.1'] });
const manager = new BrowserManager({
  executablePath: '/usr/bin/chromium',
  workspaceRoot,
  downloadsDir: join(workspaceRoot, 'downloads'),
  downloadsShownAs: 'downloads',
  ssrfGuard,
});
try {
  const registry = new ToolRegistry();
  registry.registerAll(
    createBrowserTools({
      manager,
      ssrfGuard,
      workspaceRoot,
      artifactsDir: join(workspaceRoot, 'artifacts'),
    }),
  );
  console.log(`${registry.ids().length} tools: ${registry.ids().sort().join(', ')}`);
} finally {
  await manager.dispose();
  rmSync(workspaceRoot, { recursive: true, force: true });
}

// Prints:
// 15 tools: browser_click, browser_context_summary, browser_date_input, browser_debug_dump, browser_download_list, browser_file_upload, browser_input, browser_navigate, browser_network_log, browser_screenshot, browser_scroll, browser_select, browser_show, browser_snapshot, browser_toggle
