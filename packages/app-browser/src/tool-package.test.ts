import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createToolExecutor,
  type ToolPackageContext,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER_TOOL_IDS } from './browser-tools.js';
import {
  type BrowserConfig,
  browserConfigSchema,
  findBrowserExecutable,
  toolPackage,
} from './tool-package.js';

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'app-browser-entry-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

function context(config: BrowserConfig): ToolPackageContext<BrowserConfig> {
  const registry = new ToolRegistry();
  return {
    config,
    workspaceRoot: directory,
    dataDir: join(directory, 'data'),
    configDir: directory,
    env: { PATH: '' },
    registry,
    executor: createToolExecutor({ registry }),
    mode: 'gate',
  };
}

describe('toolPackage', () => {
  it('has the config key app-browser and a strict schema with defaults', () => {
    expect(toolPackage.key).toBe('app-browser');
    expect(toolPackage.name).toBe('@toolsys/app-browser');
    const parsed = browserConfigSchema.parse({});
    expect(parsed).toEqual({
      headless: true,
      maxTokens: 6_000,
      deltaMaxTokens: 1_500,
      idleTimeoutMs: 300_000,
      actionTimeoutMs: 10_000,
      navigationTimeoutMs: 30_000,
      allowPrivateNetwork: false,
      blockedHosts: [],
      downloadsDir: 'downloads',
      maxDownloadBytes: 104_857_600,
      maxDownloads: 20,
      maxDownloadTotalBytes: 262_144_000,
      redactEnv: [],
      networkLogSize: 500,
    });
    const misspelled = browserConfigSchema.safeParse({ maxToken: 10 });
    expect(misspelled.success).toBe(false);
  });

  it('explains what allowPrivateNetwork takes when given one host as a string', () => {
    const parsed = browserConfigSchema.safeParse({ allowPrivateNetwork: '127.0.0.1' });
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      'expected true, false, or a list of hosts, IPs and CIDR ranges, e.g. ["127.0.0.1"] (one host is a list of one)',
    ]);
  });

  it('is off with a reason when the configured executable is missing', async () => {
    const status = await toolPackage.detect({
      ...context(browserConfigSchema.parse({ executablePath: 'no-such-chrome' })),
    });
    expect(status).toEqual({
      enabled: false,
      reason: `executablePath ${join(directory, 'no-such-chrome')} is not an executable file; fix it or remove it`,
    });
  });

  it('finds a configured executable relative to the config directory', async () => {
    const fake = join(directory, 'my-chrome');
    await writeFile(fake, '#!/bin/sh\n');
    await chmod(fake, 0o755);
    expect(
      await findBrowserExecutable({ executablePath: 'my-chrome', configDir: directory, env: {} }),
    ).toEqual({ path: fake, reason: `browser at ${fake} (executablePath)` });
  });

  it('builds the fifteen tools in gate mode without starting anything', async () => {
    const contribution = await toolPackage.create(context(browserConfigSchema.parse({})));
    expect(contribution.tools.map((tool) => tool.id).sort()).toEqual([...BROWSER_TOOL_IDS].sort());
    expect(new Set(BROWSER_TOOL_IDS)).toEqual(
      new Set([
        'browser_navigate',
        'browser_click',
        'browser_input',
        'browser_scroll',
        'browser_select',
        'browser_screenshot',
        'browser_snapshot',
        'browser_toggle',
        'browser_show',
        'browser_download_list',
        'browser_file_upload',
        'browser_date_input',
        'browser_context_summary',
        'browser_network_log',
        'browser_debug_dump',
      ]),
    );
    await contribution.dispose?.();
  });

  it('refuses a downloads directory outside the workspace', async () => {
    await expect(
      toolPackage.create(context(browserConfigSchema.parse({ downloadsDir: '../elsewhere' }))),
    ).rejects.toThrow(
      'packages.app-browser.downloadsDir: "../elsewhere" must stay inside the workspace root',
    );
  });
});
