import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { defaultDataDirectory, invocationDirectory } from './paths.js';

const riskPolicy = z.enum(['allow', 'ask', 'deny']);

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
      .record(z.string(), z.object({ enabled: z.boolean().optional() }).loose())
      .optional()
      .describe(
        'Per-package switches and options, keyed by short package name (core, mcp-client, cs-mem, …).',
      ),
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
  const base = source ? dirname(source) : cwd;
  return {
    config,
    file: source,
    workspaceRoot: resolve(base, config.workspaceRoot ?? '.'),
    dataDir: config.dataDir ? resolve(base, config.dataDir) : defaultDataDirectory(env),
  };
}
