import { isAbsolute, resolve } from 'node:path';
import { defineToolPackage } from '@toolsys/core-tool-registry';
import { probeCommandSandbox } from '@toolsys/platform';
import { z } from 'zod';
import { CpuToolPool } from './cpu/cpu-tool-pool.js';
import { createDiscoveryTools } from './tools/discovery/index.js';
import { createCoreTools } from './tools/index.js';

const stringList = z.array(z.string().min(1));

/** The `packages.core` section of `toolsys.config.json`: shell, network, skills and memory options. */
export const coreConfigSchema = z
  .object({
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
          .describe(
            'Approved commands get only an allow-list of variables (default true); false passes the whole environment.',
          ),
        passEnvironment: stringList
          .optional()
          .describe(
            'More variables approved commands receive (JAVA_HOME, GOPATH …); credential names and values stay withheld.',
          ),
        defaultTimeoutMs: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('Time limit of a command when the call gives none.'),
        maxTimeoutMs: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('Largest time limit a call may ask for.'),
        sandbox: z
          .enum(['auto', 'off'])
          .optional()
          .describe(
            'auto (default): read-only commands run unasked inside bubblewrap; off: every command asks.',
          ),
        sandboxExecutable: z
          .string()
          .min(1)
          .optional()
          .describe('The bubblewrap executable (default: bwrap on PATH).'),
      })
      .strict()
      .optional()
      .describe('shell_execute: which commands run without asking, and their limits.'),
    network: z
      .object({
        allowPrivateNetwork: z
          .union([z.boolean(), stringList], {
            error:
              'expected true, false, or a list of hosts, IPs and CIDR ranges, e.g. ["127.0.0.1"] (one host is a list of one)',
          })
          .optional()
          .describe('Loopback/private destinations allowed: true, false, or hosts/IPs/CIDRs.'),
        searxngUrl: z.url().optional().describe('SearXNG instance behind web_search.'),
        userAgent: z.string().min(1).optional().describe('User-Agent of outgoing requests.'),
        maxResponseBytes: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('Largest response body read by web_fetch and http_request.'),
        maxDownloadBytes: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('Largest file download_file writes.'),
        requestTimeoutMs: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('Time limit of a request.'),
      })
      .strict()
      .optional()
      .describe('web_fetch, web_search, http_request and download_file.'),
    skills: z
      .object({
        catalogs: stringList
          .optional()
          .describe('Skill catalogs for skill_search: JSON index files or folders of skills.'),
        allowNpm: z.boolean().optional().describe('Let skill_install fetch npm packages.'),
      })
      .strict()
      .optional()
      .describe('skill_search and skill_install.'),
    memory: z
      .object({
        shared: z
          .boolean()
          .optional()
          .describe(
            'true: every caller reads and writes one set of notes (and, unless packages.cs-mem.shared says otherwise, one memory graph); default false: one set per caller (principal).',
          ),
      })
      .strict()
      .optional()
      .describe('memorize, recall and forget.'),
  })
  .strict();

/** The core package's config section. */
export type CoreConfig = z.infer<typeof coreConfigSchema>;

/**
 * The core package as a deployment composes it: always on (pure Node). Its `packages.core` section
 * tunes shell, network and skills; skill catalogs resolve against the config file's directory.
 * It also contributes the discovery tools (tool_search, tool_describe, tool_call).
 */
export const toolPackage = defineToolPackage<CoreConfig>({
  name: '@toolsys/core-tools',
  key: 'core',
  description: 'files, shell, network, utilities, structured data, skills, batches and shortcuts',
  configSchema: coreConfigSchema,
  async detect({ config, probes }) {
    if (config.shell?.sandbox === 'off') {
      return {
        enabled: true,
        reason:
          'pure Node, always available; command sandbox off (packages.core.shell.sandbox): every shell command asks',
      };
    }
    if (probes === 'deciding') {
      // Core is on whatever the sandbox probe finds: a starting server does not wait for it. The
      // first shell command probes (once), and `toolsys doctor` shows the result.
      return {
        enabled: true,
        reason:
          'pure Node, always available; the command sandbox is probed on the first shell command',
      };
    }
    const sandbox = await probeCommandSandbox(
      config.shell?.sandboxExecutable ? { executable: config.shell.sandboxExecutable } : {},
    );
    return {
      enabled: true,
      reason: sandbox.available
        ? `pure Node, always available; read-only commands run unasked in the command sandbox (${sandbox.reason})`
        : `pure Node, always available; no command sandbox, so every shell command asks: ${sandbox.reason}`,
    };
  },
  create: ({ config, workspaceRoot, dataDir, configDir, executor, mode }) => {
    const catalogs = config.skills?.catalogs?.map((path) =>
      isAbsolute(path) ? path : resolve(configDir, path),
    );
    // CPU-bound tools run in worker threads the deployment owns (none start in gate mode).
    const cpuPool = mode === 'gate' ? undefined : new CpuToolPool();
    return {
      tools: [
        ...createCoreTools({
          workspaceRoot,
          dataDir,
          executor,
          cpuPool: cpuPool ?? false,
          ...(config.shell ? { shell: config.shell } : {}),
          ...(config.network ? { network: config.network } : {}),
          ...(config.memory?.shared !== undefined
            ? { memory: { shared: config.memory.shared } }
            : {}),
          skills: {
            ...(config.skills?.allowNpm !== undefined ? { allowNpm: config.skills.allowNpm } : {}),
            ...(config.shell?.passEnvironment
              ? { passEnvironment: config.shell.passEnvironment }
              : {}),
            ...(catalogs ? { catalogs } : {}),
            ...(config.shell ? { shellPolicy: config.shell } : {}),
          },
        }),
        ...createDiscoveryTools({ executor }),
      ],
      dispose: () => cpuPool?.close(),
    };
  },
});
