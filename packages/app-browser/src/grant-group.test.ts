import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SsrfGuard } from '@toolsys/platform';
import { describe, expect, it } from 'vitest';
import { BrowserManager } from './browser-manager.js';
import { createBrowserTools } from './browser-tools.js';

describe('the browser grant group', () => {
  it('holds the page tools that ask, and leaves the file upload out', () => {
    const workspaceRoot = join(tmpdir(), 'browser-grant-group');
    // No browser starts: the tools are only built, never called.
    const tools = createBrowserTools({
      manager: new BrowserManager({
        workspaceRoot,
        downloadsDir: join(workspaceRoot, 'downloads'),
        downloadsShownAs: 'downloads',
        // Never launched: the tools are only built.
        executablePath: 'chromium-never-started',
      }),
      ssrfGuard: new SsrfGuard(),
      workspaceRoot,
      artifactsDir: join(workspaceRoot, 'artifacts'),
    });
    const grouped = tools
      .filter((tool) => tool.metadata.grantGroup?.id === 'browser')
      .map((tool) => tool.id)
      .sort();
    expect(grouped).toEqual([
      'browser_click',
      'browser_date_input',
      'browser_input',
      'browser_navigate',
      'browser_scroll',
      'browser_select',
      'browser_toggle',
    ]);
    const upload = tools.find((tool) => tool.id === 'browser_file_upload');
    expect(upload?.metadata.grantGroup).toBeUndefined();
  });
});
