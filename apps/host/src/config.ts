import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type AnyToolPackageEntry, REPLICA_NAME_PATTERN } from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { auditConfigSchema } from './audit/audit-config.js';
import { closestKeyHint, describeIssues } from './config-issues.js';
import { limitsConfigSchema } from './limits-config.js';
import { BUILTIN_PACKAGE_KEYS } from './packages/builtin-packages.js';
import { parsePackageSection } from './packages/package-section.js';
import { defaultDataDirectory, invocationDirectory } from './paths.js';
import { introspectionConfigSchema } from './server/introspection-config.js';

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

const toolPattern = z
  .string()
  .min(1)
  .describe(
    'A tool id or glob (`browser_*`, `terminal.*`), `category:<name>` (e.g. `category:network`) or `package:<key>` (e.g. `package:cs-mem`).',
  );

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
    audit: auditConfigSchema,
    limits: limitsConfigSchema,
    permissions: z
      .object({
        LOW: riskPolicy.optional(),
        MEDIUM: riskPolicy.optional(),
        HIGH: riskPolicy.optional(),
        alwaysAllow: z
          .array(z.string())
          .optional()
          .describe('Tool ids that run without asking, whatever their risk.'),
      })
      .strict()
      .optional()
      .describe(
        'What happens to a call of each risk level: allow, ask (default for MEDIUM and HIGH) or deny.',
      ),
    plugins: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'Third-party tool packages to compose, by npm name, installed beside the config file or the host; each must export a `toolPackage` entry.',
      ),
    packages: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "Per-package sections keyed by package key (core, mcp-client, cs-mem, …): `enabled` forces a package on or off, `groups` switches tool categories off, the rest is the package's own options.",
      ),
    tools: z
      .object({
        mode: z
          .enum(['all', 'discover'])
          .optional()
          .describe(
            'What MCP clients list: `all` tools (default), or `discover`: only tool_search, tool_describe and tool_call, which reach every tool of the deployment.',
          ),
        names: z
          .enum(['safe', 'ids'])
          .optional()
          .describe(
            'Names MCP clients list tools under: `safe` (default) names every client accepts, `terminal.run` listed as `terminal_run`; `ids` the ids as they are. Calls by either name work.',
          ),
        include: z
          .array(toolPattern)
          .optional()
          .describe('When set, only tools matching one of these patterns are registered.'),
        exclude: z
          .array(toolPattern)
          .optional()
          .describe('Tools matching any of these patterns are not registered.'),
        disabled: z
          .array(z.string())
          .optional()
          .describe('Tool ids never registered (same as listing them in `exclude`).'),
        runPolicies: z
          .record(z.string(), runPolicyOverride)
          .optional()
          .describe('Run-policy overrides per tool id.'),
      })
      .strict()
      .optional()
      .describe('Which tools a deployment registers and lists, and their run policies.'),
    state: z
      .object({
        redis: z
          .object({
            url: z
              .string()
              .regex(/^rediss?:\/\//, 'expected a redis:// or rediss:// URL')
              .describe('Redis shared by every replica, e.g. redis://10.0.0.5:6379/0.'),
            passwordEnv: z
              .string()
              .optional()
              .describe(
                'Environment variable holding the Redis password (keeps it out of this file).',
              ),
            keyPrefix: z
              .string()
              .min(1)
              .optional()
              .describe(
                'Prefix of every key, so deployments can share one Redis. Default "toolsys:".',
              ),
            operationTimeoutMs: z
              .number()
              .int()
              .min(5)
              .max(5000)
              .optional()
              .describe(
                'Longest wait for one Redis operation, in ms; past it the call decides on its fair share of local state. Default: chosen from the measured round trips (4 × p99, 300 to 1000 ms).',
              ),
            replicaId: z
              .string()
              .optional()
              .describe(
                'This replica in the shared trace ring and the heartbeat (and, without server.replicaName, in its session ids and the x-toolsys-replica response header, sent only to authenticated callers); unique per running replica. Default: an opaque random id, new at each start.',
              ),
            grantMaxStalenessMs: z
              .number()
              .int()
              .min(100)
              .max(3_600_000)
              .optional()
              .describe(
                'Longest time a replica honours a permission grant Redis has not confirmed, in ms: the worst-case delay of a revocation made on another replica when its message is lost or Redis is down. Default 5000.',
              ),
          })
          .strict()
          .optional()
          .describe(
            'Share rate limits, circuit breakers, permission grants and recent traces with other replicas. While Redis is down or slow, each replica runs on its own state.',
          ),
      })
      .strict()
      .optional()
      .describe('State shared between several replicas of `toolsys serve --http`.'),
    telemetry: z
      .object({
        otlp: z
          .object({
            endpoint: z
              .string()
              .url()
              .describe('OTLP/HTTP base URL of a collector, e.g. http://127.0.0.1:4318.'),
            headers: z
              .record(z.string(), z.string())
              .optional()
              .describe('Headers sent with every export.'),
            headersEnv: z
              .string()
              .optional()
              .describe(
                'Environment variable holding more headers as "key=value,key2=value2" (for API keys).',
              ),
            serviceName: z
              .string()
              .optional()
              .describe('service.name of the exported data. Default "toolsys".'),
            metricIntervalMs: z
              .number()
              .int()
              .min(1000)
              .optional()
              .describe('Interval of metric exports, in ms. Default 15000.'),
          })
          .strict()
          .optional()
          .describe(
            'Export spans (one per attempt, no argument values) and metrics (calls, failures, latency, breaker state) over OTLP/HTTP.',
          ),
      })
      .strict()
      .optional()
      .describe('OpenTelemetry export.'),
    server: z
      .object({
        host: z.string().optional().describe('Address `serve --http` binds; default 127.0.0.1.'),
        port: z.number().int().min(0).max(65_535).optional().describe('Default 7821.'),
        allowedOrigins: z
          .array(z.string())
          .optional()
          .describe('Browser origins allowed besides the server itself.'),
        allowedHosts: z
          .array(
            z
              .string()
              .regex(/^[A-Za-z0-9.:[\]-]+$/, 'expected host:port, e.g. 127.0.0.1:8080')
              .max(300),
          )
          .optional()
          .describe(
            "Host headers accepted besides the server's own while bound to loopback, as host:port: the address of a load balancer in front (e.g. HAProxy on 127.0.0.1:8080).",
          ),
        tokenEnv: z
          .string()
          .optional()
          .describe('Environment variable holding the bearer token (default TOOLSYS_TOKEN).'),
        tokens: z
          .array(
            z
              .object({
                name: z
                  .string()
                  .regex(
                    /^[A-Za-z0-9._@-]{1,64}$/,
                    'letters, digits, ".", "_", "-", "@"; at most 64',
                  )
                  .describe(
                    'The principal this token names (in the audit log, traces and sessions).',
                  ),
                tokenEnv: z
                  .string()
                  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
                  .describe(
                    'Environment variable holding the secret; it must be set when the server starts.',
                  ),
                scopes: z
                  .array(z.string().min(1))
                  .optional()
                  .describe(
                    'Scopes the token grants (names of server.auth.scopes, default tools:read, tools:write, tools:admin). Absent: every scope.',
                  ),
              })
              .strict(),
          )
          .optional()
          .describe(
            'Named bearer tokens, one principal each, accepted beside tokenEnv (whose token is the principal "default") and beside OAuth access tokens.',
          ),
        publicUrl: z
          .url({ protocol: /^https?$/ })
          .optional()
          .describe(
            "The URL clients reach this server at (behind a proxy, the proxy's), without /mcp; names the resource in OAuth metadata. Required with auth.",
          ),
        auth: z
          .object({
            issuer: z
              .url({ protocol: /^https?$/ })
              .describe(
                "The OAuth authorization server, exactly as its tokens' iss claim; its keys are found through its RFC 8414 or OpenID discovery document. http: only on loopback.",
              ),
            audience: z
              .url({ protocol: /^https?$/ })
              .optional()
              .describe('The aud access tokens must carry. Default publicUrl + /mcp.'),
            dashboardClientId: z
              .string()
              .min(1)
              .optional()
              .describe(
                'A public client (PKCE, no secret) registered at the issuer with the redirect URI publicUrl + /auth/callback: people sign in to the dashboard with it. Without it, the dashboard takes a named token.',
              ),
            scopes: z
              .object({
                LOW: z.string().min(1).optional().describe('Default tools:read.'),
                MEDIUM: z.string().min(1).optional().describe('Default tools:write.'),
                HIGH: z
                  .string()
                  .min(1)
                  .optional()
                  .describe(
                    'Default tools:admin; also shows every caller on the dashboard and opens its call form.',
                  ),
              })
              .strict()
              .optional()
              .describe(
                "The scope a call of each risk level needs; a higher level's scope covers the lower ones.",
              ),
            introspection: introspectionConfigSchema,
          })
          .strict()
          .optional()
          .describe(
            "Makes `serve --http` an OAuth 2.1 protected resource: every request needs a JWT access token from this issuer (replaces tokenEnv), and each call the scope of its tool's risk.",
          ),
        maxSessions: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe(
            'Most MCP sessions open at once (default 100); a new one past it gets 503 with Retry-After.',
          ),
        deploymentKeyEnv: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
          .optional()
          .describe(
            'Environment variable holding the deployment key (base64 or hex of 32+ random bytes; default TOOLSYS_DEPLOYMENT_KEY). It seals protocol state handed to clients and keys audit digests; replicas must share it. Unset: a key generated in dataDir.',
          ),
        sessionIdleSeconds: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe('A session idle this long is closed (default 1800); its id then gets 404.'),
        replicaName: z
          .string()
          .regex(REPLICA_NAME_PATTERN, 'letters, digits, _ and -, at most 32, no dot')
          .optional()
          .describe(
            "This replica's name behind a load balancer (e.g. replica1, its HAProxy server name); the TOOLSYS_REPLICA_NAME environment variable wins over it (replicas usually share one config file). Handles its tools return (terminal sessions, browser tabs) start with it, so calls that carry one are routed back here; it also names the replica in its session ids and the x-toolsys-replica header (not in Redis: state.redis.replicaId stays new at each start). Unset: handles name no replica.",
          ),
      })
      .strict()
      .refine((server) => !server.auth || server.publicUrl, {
        message: 'server.auth needs server.publicUrl (the URL clients reach this server at).',
        path: ['publicUrl'],
      })
      .optional()
      .describe('`toolsys serve --http`: address, port, allowed origins and the bearer token.'),
  })
  .strict();

/** A parsed deployment config. */
export type DeploymentConfig = z.infer<typeof deploymentConfigSchema>;

/** A deployment config with its paths resolved. */
export interface ResolvedDeploymentConfig {
  readonly config: DeploymentConfig;
  /** The file it came from, or undefined for the embedded default. */
  readonly file: string | undefined;
  readonly workspaceRoot: string;
  readonly dataDir: string;
  /** Directory relative paths in the config resolve against: the file's, else the invocation directory. */
  readonly configDir: string;
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

/** Options for {@link parseDeploymentConfig}. */
export interface ParseConfigOptions {
  /**
   * Package entries whose sections are checked against their schemas here. Default none: the
   * sections are checked when a deployment is composed, so that reading a config (and reporting
   * its errors) loads no tool package.
   */
  readonly packages?: readonly AnyToolPackageEntry[];
}

/**
 * Parses and validates a config object; errors name the file and each field at fault, and an
 * unknown key the closest valid one. An unknown package key is refused unless plugins may own
 * it; the sections of `options.packages` are checked against their schemas here, all others when
 * the deployment is composed.
 */
export function parseDeploymentConfig(
  value: unknown,
  file = '<inline>',
  options: ParseConfigOptions = {},
): DeploymentConfig {
  const parsed = deploymentConfigSchema.safeParse(value);
  const problems = parsed.success
    ? []
    : describeIssues(parsed.error.issues, deploymentConfigSchema);
  const raw = (typeof value === 'object' && value !== null ? value : {}) as {
    packages?: unknown;
    plugins?: unknown;
  };
  const sections =
    typeof raw.packages === 'object' && raw.packages !== null && !Array.isArray(raw.packages)
      ? (raw.packages as Record<string, unknown>)
      : {};
  const hasPlugins = Array.isArray(raw.plugins) && raw.plugins.length > 0;
  const builtinKeys = [...BUILTIN_PACKAGE_KEYS];
  for (const [key, section] of Object.entries(sections)) {
    const entry = options.packages?.find((candidate) => candidate.key === key);
    if (entry) {
      const result = parsePackageSection(entry, section);
      if (result.problems) problems.push(...result.problems);
    } else if (!builtinKeys.includes(key) && !hasPlugins) {
      problems.push(
        `  packages.${key}: unknown package "${key}"${closestKeyHint(key, builtinKeys)}; a third-party package must also be named in \`plugins\``,
      );
    }
  }
  if (problems.length > 0 || !parsed.success) {
    throw new ConfigError(`${file} is invalid:\n${problems.join('\n')}`);
  }
  return parsed.data;
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
    configDir: base,
    env,
  };
}
