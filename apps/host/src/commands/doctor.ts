import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ResolvedDeploymentConfig } from '../config.js';
import { openDeployment, splitArgs } from './shared.js';
import { type CliCommand, UsageError } from './types.js';

/** One backend probe of `toolsys doctor`. */
export interface BackendProbe {
  readonly name: string;
  readonly found: boolean;
  /** Where it was found, or why not. Never a secret. */
  readonly detail: string;
}

function findOnPath(names: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  const directories = (env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const name of names) {
    for (const directory of directories) {
      const candidate = join(directory, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // Not here; keep looking.
      }
    }
  }
  return undefined;
}

/** Probes the backends optional packages need: Chromium, adb, Appium, a GitHub token, MCP servers. */
export function probeBackends(deployment: ResolvedDeploymentConfig): BackendProbe[] {
  const env = deployment.env ?? process.env;
  const { config } = deployment;
  const chromium =
    config.browser?.executablePath ??
    findOnPath(['chromium', 'chromium-browser', 'google-chrome'], env);
  const adb = findOnPath(['adb'], env);
  const tokenSource = config.github?.token;
  const tokenEnv =
    tokenSource && 'env' in tokenSource
      ? tokenSource.env
      : ['GITHUB_TOKEN', 'GH_TOKEN'].find((name) => env[name]);
  const hasToken = tokenSource && 'file' in tokenSource ? true : Boolean(tokenEnv && env[tokenEnv]);
  const mcpSection = config.packages?.['mcp-client'];
  const mcpServers = Object.keys(mcpSection?.servers ?? {});
  const mcpImport = mcpSection?.importConfig;
  const mcpImportPath = typeof mcpImport === 'string' ? mcpImport : mcpImport?.path;
  return [
    {
      name: 'chromium',
      found: chromium !== undefined,
      detail: chromium ?? 'not found on PATH (set browser.executablePath)',
    },
    {
      name: 'adb',
      found: adb !== undefined,
      detail: adb ?? 'not found on PATH',
    },
    {
      name: 'appium',
      found: config.android?.appiumUrl !== undefined,
      detail: config.android?.appiumUrl ?? 'no android.appiumUrl configured',
    },
    {
      name: 'github token',
      found: hasToken,
      detail:
        tokenSource && 'file' in tokenSource
          ? `from file ${tokenSource.file}`
          : hasToken
            ? `present in $${tokenEnv}`
            : 'absent (set GITHUB_TOKEN or github.token)',
    },
    {
      name: 'mcp servers',
      found: mcpServers.length > 0 || mcpImportPath !== undefined,
      detail:
        [
          ...(mcpServers.length > 0 ? [mcpServers.join(', ')] : []),
          ...(mcpImportPath !== undefined ? [`imported from ${mcpImportPath}`] : []),
        ].join('; ') || 'none configured (packages.mcp-client.servers or importConfig)',
    },
  ];
}

/** `toolsys doctor`: which packages are on, which are off, and why. */
export const doctorCommand: CliCommand = {
  name: 'doctor',
  summary: 'Show which packages are on or off and why, and which backends were found.',
  usage: 'toolsys doctor [--json] [--config FILE]',
  async run(args, io) {
    const { flags, values, positionals } = splitArgs(args, {
      booleans: ['json'],
      values: ['config'],
    });
    if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}".`);
    const deployment = await openDeployment(io, { configPath: values.get('config') });
    try {
      const packages = [...deployment.statuses.entries()].map(([key, status]) => ({
        key,
        name: status.name,
        enabled: status.enabled,
        reason: status.reason,
        tools: status.tools,
      }));
      const backends = probeBackends(deployment.config);
      const report = {
        config: deployment.config.file ?? null,
        workspaceRoot: deployment.config.workspaceRoot,
        dataDir: deployment.config.dataDir,
        tools: deployment.registry.size,
        packages,
        backends,
      };
      if (flags.has('json')) {
        io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return 0;
      }
      const width = Math.max(...packages.map((entry) => entry.key.length), 8);
      const lines = [
        `config:    ${report.config ?? 'embedded default (no toolsys.config.json)'}`,
        `workspace: ${report.workspaceRoot}`,
        `data:      ${report.dataDir}`,
        '',
        'packages:',
        ...packages.map(
          (entry) =>
            `  ${entry.enabled ? 'on ' : 'off'}  ${entry.key.padEnd(width)}  ${entry.enabled ? `${entry.tools} tools; ` : ''}${entry.reason}`,
        ),
        '',
        'backends:',
        ...backends.map(
          (probe) =>
            `  ${probe.found ? 'found  ' : 'missing'}  ${probe.name.padEnd(12)}  ${probe.detail}`,
        ),
        '',
        `${report.tools} tools in this deployment`,
        '',
      ];
      io.stdout.write(lines.join('\n'));
      return 0;
    } finally {
      await deployment.close();
    }
  },
};
