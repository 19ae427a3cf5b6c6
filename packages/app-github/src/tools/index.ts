import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import type { GitHubClient } from '../github-client.js';
import { RepositoryScope } from '../repository-scope.js';
import { createCreateIssueTool } from './create-issue.js';
import { createGetUserTool } from './get-user.js';
import type { GitHubToolShared } from './github-tool.js';
import { createListIssuesTool } from './list-issues.js';
import { createListReposTool } from './list-repos.js';
import { createReadFileTool } from './read-file.js';
import { createSearchCodeTool } from './search-code.js';
import { createWriteFileTool } from './write-file.js';

/** Options for {@link createGitHubTools}. */
export interface GitHubToolsOptions {
  /** The client every tool calls GitHub through (resolves its token on first use). */
  client: GitHubClient;
  /** Repositories the tools may touch. Default: every repository the token reaches. */
  scope?: RepositoryScope;
  /** Registers only the five read tools. Default false. */
  readOnly?: boolean;
  /** Largest file `github_read_file` downloads and `github_write_file` uploads, in bytes. Default 1 MiB. */
  maxFileBytes?: number;
  /** Clock in ms since the epoch (rate-limit waits). Default `Date.now`. */
  now?: () => number;
}

/** The ids of the tools that change GitHub, left out in read-only mode. */
export const GITHUB_WRITE_TOOL_IDS: readonly string[] = [
  'github_write_file',
  'github_create_issue',
];

const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

/**
 * The seven GitHub tools over one client: `github_get_user`, `github_list_repos`,
 * `github_read_file`, `github_write_file`, `github_create_issue`, `github_list_issues` and
 * `github_search_code` (the two write tools are left out when `readOnly`). Building them contacts
 * nothing.
 */
export function createGitHubTools(options: GitHubToolsOptions): AnyToolDefinition[] {
  const shared: GitHubToolShared = {
    client: options.client,
    scope: options.scope ?? new RepositoryScope(),
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    now: options.now ?? Date.now,
  };
  return [
    createGetUserTool(shared),
    createListReposTool(shared),
    createReadFileTool(shared),
    ...(options.readOnly ? [] : [createWriteFileTool(shared), createCreateIssueTool(shared)]),
    createListIssuesTool(shared),
    createSearchCodeTool(shared),
  ];
}
