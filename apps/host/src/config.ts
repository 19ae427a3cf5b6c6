import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { defaultDataDirectory, invocationDirectory } from './paths.js';

const riskPolicy = z
  .enum(['allow', 'ask', 'deny'])
  .describe('allow: run without asking; ask: confirm with the user; deny: refuse.');

const runPolicyName = z.enum(['quickRead', 'network', 'mutating', 'legacy']);

const runPolicyOverride = z
  .object({
    preset: runPolicyName
      .optional()
      .describe('Start from this preset instead of the tool default.'),
    timeoutMs: z.number().int().positive().optional().describe('Per-attempt time budget in ms.'),
    maxRetries: z.number().int().min(0).max(10).optional().describe('Retries after the first try.'),
    ratePerMinute: z
      .number()
      .int()
      .positive()
      .nullable()
      .optional()
      .describe('Calls allowed per minute; null removes the limit.'),
  })
  .strict();

const packageSwitches = {
  enabled: z.boolean().optional().describe('Force the package on (true) or off (false).'),
  groups: z
    .record(z.string(), z.boolean())
    .optional()
    .describe('Tool groups (categories such as shell, network, file) switched off with false.'),
};

/** Options every package section accepts; package-specific options pass through. */
const packageSection = z.object(packageSwitches).loose();

const stringList = z.array(z.string().min(1));

/** The documented package sections; the package entries read (and re-validate) the rest. */
const knownPackageSections = {
  core: z
    .object({
      ...packageSwitches,
      shell: z
        .object({
          allowCommands: stringList.optional().describe('Extra commands that run without asking.'),
          denyCommands: stringList.optional().describe('Extra commands that are always refused.'),
          useAllowList: z
            .boolean()
            .optional()
            .describe('false: every command that is not denied asks first.'),
          scrubEnvironment: z
            .boolean()
            .optional()
            .describe('Remove secrets from the environment of commands (default true).'),
          defaultTimeoutMs: z.number().int().positive().optional(),
          maxTimeoutMs: z.number().int().positive().optional(),
        })
        .strict()
        .optional(),
      network: z
        .object({
          allowPrivateNetwork: z
            .union([z.boolean(), stringList])
            .optional()
            .describe('Loopback/private destinations allowed: true, false, or hosts/IPs/CIDRs.'),
          searxngUrl: z.url().optional().describe('SearXNG instance behind web_search.'),
          userAgent: z.string().min(1).optional(),
          maxResponseBytes: z.number().int().positive().optional(),
          maxDownloadBytes: z.number().int().positive().optional(),
          requestTimeoutMs: z.number().int().positive().optional(),
        })
        .strict()
        .optional(),
      skills: z
        .object({
          catalogs: stringList
            .optional()
            .describe('Skill catalogs for skill_search: JSON index files or folders of skills.'),
          allowNpm: z.boolean().optional().describe('Let skill_install fetch npm packages.'),
        })
        .strict()
        .optional(),
    })
    .loose()
    .optional(),
  'cs-mem': z
    .object({
      ...packageSwitches,
      databasePath: z
        .string()
        .min(1)
        .optional()
        .describe('SQLite file of the cognitive memory; default `<dataDir>/memory.db`.'),
    })
    .loose()
    .optional(),
  'mcp-client': z
    .object({
      ...packageSwitches,
      servers: z
        .record(z.string(), z.object({}).loose())
        .optional()
        .describe('MCP servers to connect, keyed by name (the Claude Desktop `mcpServers` shape).'),
      importConfig: z
        .union([
          z.string(),
          z.object({ path: z.string(), inputs: z.record(z.string(), z.string()).optional() }),
        ])
        .optional()
        .describe('A Claude Desktop / Cursor / VS Code MCP config to import servers from.'),
    })
    .loose()
    .optional(),
};

const githubTokenSource = z.union([
  z.object({ env: z.string().min(1).describe('Read the token from this environment variable.') }),
  z.object({ file: z.string().min(1).describe('Read the token from this file (first line).') }),
]);

/** The schema of `toolsys.config.json`. Every field is optional; the embedded default fills the rest. */
export const deploymentConfigSchema = z
  .object({
    $schema: z.string().optional(),
    workspaceRoot: z
      .string()
      .optional()
      .describe('Directory file and shell tools are confined to.'),
    dataDir: z
      .string()
      .optional()
      .describe('Directory for notes, skills, shortcuts, traces and the memory database.'),
    permissions: z
      .object({
        LOW: riskPolicy.optional(),
        MEDIUM: riskPolicy.optional(),
        HIGH: riskPolicy.optional(),
        alwaysAllow: z.array(z.string()).optional(),
      })
      .strict()
      .optional(),
    packages: z
      .object(knownPackageSections)
      .catchall(packageSection)
      .optional()
      .describe(
        'Per-package switches and options, keyed by short package name (core, mcp-client, cs-mem, …).',
      ),
    tools: z
      .object({
        disabled: z.array(z.string()).optional().describe('Tool ids never registered.'),
        runPolicies: z
          .record(z.string(), runPolicyOverride)
          .optional()
          .describe('Run-policy overrides per tool id.'),
      })
      .strict()
      .optional(),
    browser: z
      .object({
        executablePath: z.string().optional().describe('Chromium executable.'),
        headless: z.boolean().optional(),
      })
      .loose()
      .optional(),
    android: z
      .object({
        serial: z.string().optional().describe('adb serial of the device to drive.'),
        appiumUrl: z.url().optional().describe('Appium server for UI tools.'),
      })
      .loose()
      .optional(),
    github: z
      .object({
        token: githubTokenSource.optional().describe('Where the GitHub token comes from.'),
      })
      .loose()
      .optional(),
    server: z
      .object({
        host: z.string().optional().describe('Address `serve --http` binds; default 127.0.0.1.'),
        port: z.number().int().min(0).max(65_535).optional().describe('Default 7821.'),
        allowedOrigins: z
          .array(z.string())
          .optional()
          .describe('Browser origins allowed besides the server itself.'),
        tokenEnv: z
          .string()
          .optional()
          .describe('Environment variable holding the bearer token (default TOOLSYS_TOKEN).'),
      })
      .strict()
      .optional(),
  })
  .loose();

/** A parsed deployment config. */
export type DeploymentConfig = z.infer<typeof deploymentConfigSchema>;

/** A deployment config with its paths resolved. */
export interface ResolvedDeploymentConfig {
  readonly config: DeploymentConfig;
  /** The file it came from, or undefined for the embedded default. */
  readonly file: string | undefined;
  readonly workspaceRoot: string;
  readonly dataDir: string;
  /** The environment the deployment was loaded in (backend detection, token sources); `process.env` when absent. */
  readonly env?: NodeJS.ProcessEnv;
}

/** A config file that cannot be used; the message names the file and the field. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The config file name looked for in the invocation directory. */
export const CONFIG_FILE_NAME = 'toolsys.config.json';

/** Parses and validates a config object; errors name the file and each field at fault. */
export function parseDeploymentConfig(value: unknown, file = '<inline>'): DeploymentConfig {
  const parsed = deploymentConfigSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .map((issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('\n');
  throw new ConfigError(`${file} is invalid:\n${problems}`);
}

/**
 * Loads the deployment config: an explicit path, else `toolsys.config.json` in the invocation
 * directory, else the embedded default.
 */
export function loadDeploymentConfig(
  options: { path?: string; env?: NodeJS.ProcessEnv } = {},
): ResolvedDeploymentConfig {
  const env = options.env ?? process.env;
  const cwd = invocationDirectory(env);
  const explicit = options.path ?? env.TOOLSYS_CONFIG;
  const file = explicit ? resolve(cwd, explicit) : join(cwd, CONFIG_FILE_NAME);
  let config: DeploymentConfig = {};
  let source: string | undefined;
  if (existsSync(file)) {
    let raw: string;
    try {
      raw = readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`${file} cannot be read: ${(error as Error).message}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      throw new ConfigError(`${file} is not valid JSON: ${(error as Error).message}`);
    }
    config = parseDeploymentConfig(json, file);
    source = file;
  } else if (explicit) {
    throw new ConfigError(`${file} does not exist.`);
  }
  return resolveDeploymentConfig(config, { file: source, env, cwd });
}

/** Resolves a parsed config's paths against its file's directory (or `cwd` without a file). */
export function resolveDeploymentConfig(
  config: DeploymentConfig,
  options: { file?: string | undefined; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): ResolvedDeploymentConfig {
  const env = options.env ?? process.env;
  const base = options.file ? dirname(options.file) : (options.cwd ?? invocationDirectory(env));
  const dataDir = config.dataDir ? resolve(base, config.dataDir) : defaultDataDirectory(env);
  return {
    config,
    file: options.file,
    workspaceRoot: resolve(base, config.workspaceRoot ?? '.'),
    dataDir,
    env,
  };
}
