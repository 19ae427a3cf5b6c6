import { defineToolPackage } from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { resolveGitHubToken } from './github-token.js';

// The client and the tools load when the package is on (a token was found), not at import: a
// deployment without a token pays only for this entry and the token lookup.
const loadClient = () => import('./github-client.js');
const loadWriteProbe = () => import('./write-access.js');

const repoName = z
  .string()
  .regex(
    /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/(?!\.{1,2}$)[A-Za-z0-9._-]{1,100}$/,
    'expected owner/name (the name not "." or "..")',
  );
const login = z.string().regex(/^[A-Za-z0-9-]{1,39}$/, 'expected a user or organisation login');

/** The `packages.app-github` section of `toolsys.config.json`. */
export const gitHubPackageConfigSchema = z.strictObject({
  baseUrl: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      'GitHub REST API root. Default https://api.github.com; GitHub Enterprise Server: https://HOST/api/v3.',
    ),
  tokenCommand: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
    .optional()
    .describe(
      'Command printing the token, run without a shell with a 10 s limit (argv array, or a string split on spaces), e.g. "gh auth token". Tried before GITHUB_TOKEN / GH_TOKEN.',
    ),
  tokenFile: z
    .string()
    .min(1)
    .optional()
    .describe(
      'File whose first line is the token (relative to the config file). Tried after GITHUB_TOKEN / GH_TOKEN.',
    ),
  readOnly: z
    .boolean()
    .default(false)
    .describe('Register only the read tools (no github_write_file, no github_create_issue).'),
  allowedRepos: z
    .array(repoName)
    .optional()
    .describe(
      'Only these repositories (owner/name) may be touched; others are refused before any request. Default: every repository the token reaches.',
    ),
  allowedOwners: z
    .array(login)
    .optional()
    .describe(
      'Only repositories of these users or organisations may be touched (with allowedRepos: either).',
    ),
  maxFileBytes: z
    .number()
    .int()
    .min(1_024)
    .max(100 * 1024 * 1024)
    .default(1024 * 1024)
    .describe('Largest file github_read_file reads and github_write_file writes, in bytes.'),
  idleTimeoutMs: z
    .number()
    .int()
    .min(500)
    .max(300_000)
    .default(20_000)
    .describe(
      'Longest wait for GitHub to start answering, or to send the next bytes of an answer, in ms; past it the call ends with TIMEOUT.',
    ),
});

/** The parsed `packages.app-github` config. */
export type GitHubPackageConfig = z.output<typeof gitHubPackageConfigSchema>;

/**
 * The app-github package entry (config key `app-github`): on when a token is found, naming its
 * source (never its value); write tools off in read-only mode or for a classic token without write
 * scopes.
 */
export const toolPackage = defineToolPackage<GitHubPackageConfig>({
  name: '@toolsys/app-github',
  key: 'app-github',
  description: 'GitHub tools on Octokit: user, repositories, files, issues and code search.',
  configSchema: gitHubPackageConfigSchema,
  async detect(environment) {
    // Parsing again is idempotent and keeps a host that passes the raw section working.
    const config = gitHubPackageConfigSchema.parse(environment.config ?? {});
    const { env = {}, configDir = process.cwd() } = environment;
    const lookup = await resolveGitHubToken({
      tokenCommand: config.tokenCommand,
      tokenFile: config.tokenFile,
      env,
      configDir,
    });
    if (!lookup.found) return { enabled: false, reason: lookup.reason };
    const notes = [`token from ${lookup.token.source}`];
    if (lookup.skipped.length > 0) notes.push(`skipped: ${lookup.skipped.join('; ')}`);
    if (config.readOnly) {
      notes.push('read-only: write tools off');
    } else {
      const [{ GitHubClient }, { probeWriteAccess }] = await Promise.all([
        loadClient(),
        loadWriteProbe(),
      ]);
      const client = new GitHubClient({
        token: async () => lookup.token,
        ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
      });
      notes.push((await probeWriteAccess(client, { timeoutMs: 5_000 })).reason);
    }
    return { enabled: true, reason: notes.join('; ') };
  },
  async create(context) {
    const config = gitHubPackageConfigSchema.parse(context.config ?? {});
    const { env = {}, configDir = process.cwd(), mode } = context;
    const [{ GitHubClient }, { probeWriteAccess }, { RepositoryScope }, { createGitHubTools }] =
      await Promise.all([
        loadClient(),
        loadWriteProbe(),
        import('./repository-scope.js'),
        import('./tools/index.js'),
      ]);
    const client = new GitHubClient({
      async token() {
        const lookup = await resolveGitHubToken({
          tokenCommand: config.tokenCommand,
          tokenFile: config.tokenFile,
          env,
          configDir,
        });
        if (!lookup.found) throw new Error(lookup.reason);
        return lookup.token;
      },
      ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
      idleTimeoutMs: config.idleTimeoutMs,
    });
    // In gate mode nothing may be contacted: every tool is listed as if the token could write.
    const canWrite =
      mode === 'gate' || config.readOnly ? true : (await probeWriteAccess(client)).canWrite;
    const tools = createGitHubTools({
      client,
      scope: new RepositoryScope({
        allowedRepos: config.allowedRepos,
        allowedOwners: config.allowedOwners,
      }),
      readOnly: config.readOnly || !canWrite,
      maxFileBytes: config.maxFileBytes,
    });
    return { tools, dispose: () => client.dispose() };
  },
});
