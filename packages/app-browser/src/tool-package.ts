import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { defineToolPackage } from '@toolsys/core-tool-registry';
import { findExecutable, SsrfGuard } from '@toolsys/platform';
import { z } from 'zod';
import { BrowserManager } from './browser-manager.js';
import { createBrowserTools } from './browser-tools.js';
import { DEFAULT_DOWNLOAD_LIMITS } from './download-limits.js';
import { createHostPolicy } from './host-policy.js';

/** The `packages.app-browser` section of `toolsys.config.json`. */
export const browserConfigSchema = z
  .object({
    executablePath: z
      .string()
      .min(1)
      .optional()
      .describe('Chromium or Chrome executable; default: /usr/bin/chromium, else found on PATH.'),
    headless: z.boolean().default(true).describe('Run the browser without a window.'),
    maxTokens: z
      .number()
      .int()
      .min(200)
      .max(50_000)
      .default(6_000)
      .describe('Default token budget of a snapshot (≈ 4 characters a token).'),
    deltaMaxTokens: z
      .number()
      .int()
      .min(100)
      .max(50_000)
      .default(1_500)
      .describe('Token budget of the change report an action returns.'),
    idleTimeoutMs: z
      .number()
      .int()
      .min(0)
      .default(300_000)
      .describe('Close the browser after this long without a call; 0 keeps it open.'),
    actionTimeoutMs: z
      .number()
      .int()
      .min(100)
      .max(120_000)
      .default(10_000)
      .describe('Longest wait for an element to become actionable.'),
    navigationTimeoutMs: z
      .number()
      .int()
      .min(1_000)
      .max(300_000)
      .default(30_000)
      .describe('Longest wait for a page load.'),
    allowPrivateNetwork: z
      .union([z.boolean(), z.array(z.string().min(1))], {
        error:
          'expected true, false, or a list of hosts, IPs and CIDR ranges, e.g. ["127.0.0.1"] (one host is a list of one)',
      })
      .default(false)
      .describe(
        'Allow loopback and private addresses: true for all (cloud metadata stays refused), or a list of hosts, IPs and CIDR ranges.',
      ),
    allowedHosts: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'When set, the browser reaches only these hosts ("example.com", "*.example.com" for subdomains).',
      ),
    blockedHosts: z
      .array(z.string().min(1))
      .default([])
      .describe('Hosts the browser never reaches, same patterns; checked before allowedHosts.'),
    downloadsDir: z
      .string()
      .min(1)
      .default('downloads')
      .describe('Where downloads are saved, relative to the workspace root (must stay inside it).'),
    maxDownloadBytes: z
      .number()
      .int()
      .min(1)
      .default(DEFAULT_DOWNLOAD_LIMITS.maxBytes)
      .describe(
        'Most bytes of one download (default 100 MiB); a larger one is stopped at this size and removed.',
      ),
    maxDownloads: z
      .number()
      .int()
      .min(0)
      .default(DEFAULT_DOWNLOAD_LIMITS.maxCount)
      .describe('Most downloads one session may start (default 20); later ones are refused.'),
    maxDownloadTotalBytes: z
      .number()
      .int()
      .min(1)
      .default(DEFAULT_DOWNLOAD_LIMITS.maxTotalBytes)
      .describe(
        'Most bytes all downloads of one session may total (default 250 MiB); a download past it is stopped and removed.',
      ),
    redactEnv: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Names of environment variables whose values (secrets) are replaced by [redacted] in every browser result.',
      ),
    networkLogSize: z
      .number()
      .int()
      .min(10)
      .max(10_000)
      .default(500)
      .describe('Most requests kept in the network log of a session.'),
  })
  .strict();

/** The parsed config of the browser package. */
export type BrowserConfig = z.infer<typeof browserConfigSchema>;

const CANDIDATES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds the browser executable: the configured path (relative to the config directory), else
 * `/usr/bin/chromium`, else the first of chromium, chromium-browser, google-chrome on PATH.
 */
export async function findBrowserExecutable(options: {
  executablePath?: string | undefined;
  configDir: string;
  env: NodeJS.ProcessEnv;
}): Promise<{ path?: string; reason: string }> {
  if (options.executablePath !== undefined) {
    const path = resolve(options.configDir, options.executablePath);
    return (await isExecutable(path))
      ? { path, reason: `browser at ${path} (executablePath)` }
      : { reason: `executablePath ${path} is not an executable file; fix it or remove it` };
  }
  if (await isExecutable('/usr/bin/chromium')) {
    return { path: '/usr/bin/chromium', reason: 'Chromium at /usr/bin/chromium' };
  }
  for (const name of CANDIDATES) {
    const path = await findExecutable(name, { env: options.env });
    if (path !== undefined) return { path, reason: `${name} found at ${path}` };
  }
  return {
    reason:
      'no Chromium found (install the chromium package, or set packages.app-browser.executablePath)',
  };
}

/** The composition entry of `@toolsys/app-browser` (config key `app-browser`). */
export const toolPackage = defineToolPackage<BrowserConfig>({
  name: '@toolsys/app-browser',
  key: 'app-browser',
  description:
    'Browser tools on Playwright and Chromium: budgeted accessibility snapshots with stable refs, actions that report what changed.',
  configSchema: browserConfigSchema as z.ZodType<BrowserConfig>,
  async detect({ config, configDir, env }) {
    const found = await findBrowserExecutable({
      executablePath: config.executablePath,
      configDir,
      env,
    });
    return { enabled: found.path !== undefined, reason: found.reason };
  },
  async create({ config, configDir, env, workspaceRoot, dataDir, replicaName }) {
    const downloadsDir = resolve(workspaceRoot, config.downloadsDir);
    const shown = relative(workspaceRoot, downloadsDir);
    if (shown.startsWith('..') || isAbsolute(shown)) {
      throw new Error(
        `packages.app-browser.downloadsDir: "${config.downloadsDir}" must stay inside the workspace root`,
      );
    }
    const found = await findBrowserExecutable({
      executablePath: config.executablePath,
      configDir,
      env,
    });
    const ssrfGuard = new SsrfGuard({ allowPrivateNetwork: config.allowPrivateNetwork });
    const hostPolicy = createHostPolicy({
      blockedHosts: config.blockedHosts,
      ...(config.allowedHosts === undefined ? {} : { allowedHosts: config.allowedHosts }),
    });
    const manager = new BrowserManager({
      executablePath: found.path ?? config.executablePath ?? '/usr/bin/chromium',
      headless: config.headless,
      idleTimeoutMs: config.idleTimeoutMs,
      workspaceRoot,
      downloadsDir,
      downloadLimits: {
        maxBytes: config.maxDownloadBytes,
        maxCount: config.maxDownloads,
        maxTotalBytes: config.maxDownloadTotalBytes,
      },
      downloadsShownAs: shown === '' ? '.' : shown.split('\\').join('/'),
      networkLogSize: config.networkLogSize,
      ssrfGuard,
      hostPolicy,
      ...(replicaName === undefined ? {} : { replicaName }),
    });
    const tools = createBrowserTools({
      manager,
      ssrfGuard,
      hostPolicy,
      workspaceRoot,
      artifactsDir: join(dataDir, 'app-browser'),
      maxTokens: config.maxTokens,
      deltaMaxTokens: config.deltaMaxTokens,
      actionTimeoutMs: config.actionTimeoutMs,
      navigationTimeoutMs: config.navigationTimeoutMs,
      redact: config.redactEnv
        .map((name) => env[name])
        .filter((value): value is string => value !== undefined),
    });
    return {
      tools,
      dispose: () => manager.dispose(),
      endSession: (sessionId) => manager.closeSession(sessionId),
    };
  },
});
