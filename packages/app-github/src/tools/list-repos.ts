import {
  type AnyToolDefinition,
  RunPolicies,
  successResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { CleaningTally } from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import { encodeCursor, fingerprintQuery, nextPageFromLink } from '../page-cursor.js';
import { cursorField } from './argument-fields.js';
import { defineGitHubTool, type GitHubToolShared, READ_METADATA } from './github-tool.js';
import { countOf, outsideLine } from './outside-values.js';
import { pageFooter, startPage } from './paging.js';
import { rateLimitNote, readRateLimit } from './rate-limit.js';
import { oneLine, truncate, untrustedBlock } from './result-text.js';

const listReposSchema = ToolSchema.object({
  affiliation: z
    .array(z.enum(['owner', 'collaborator', 'organization_member']))
    .min(1)
    .default(['owner', 'collaborator', 'organization_member'])
    .describe(
      'Which relations to the token owner to include: repositories it owns, collaborates on, or reaches through an organisation.',
    ),
  visibility: z
    .enum(['all', 'public', 'private'])
    .default('all')
    .describe('Only public or only private repositories, or all.'),
  sort: z
    .enum(['updated', 'pushed', 'created', 'full_name'])
    .default('updated')
    .describe('Order: last updated, last pushed, created (newest first), or by name (A-Z).'),
  perPage: z.number().int().min(1).max(100).default(30).describe('Repositories per page (1-100).'),
  cursor: cursorField.optional(),
});

/** `github_list_repos`: one page of the repositories the token owner reaches, within the scope. */
export function createListReposTool(shared: GitHubToolShared): AnyToolDefinition {
  return defineGitHubTool(shared, {
    id: 'github_list_repos',
    description:
      'Lists repositories the token owner can reach (owned, collaborator, organisation member), filtered by visibility and sorted. One page per call; pass nextCursor back for the next. Returns full names, visibility, default branch, language, stars, last update and descriptions. Use github_read_file to read a file in one, github_search_code to find code across them.',
    inputSchema: listReposSchema,
    outputSchema: ToolSchema.object({
      repos: z.array(
        z.object({
          fullName: z.string(),
          private: z.boolean(),
          description: z.string().nullable(),
          defaultBranch: z.string(),
          language: z.string().nullable(),
          stars: z.number(),
          fork: z.boolean(),
          archived: z.boolean(),
          updatedAt: z.string().nullable(),
          htmlUrl: z.string(),
        }),
      ),
      hiddenByScope: z.number(),
      nextCursor: z.string().optional(),
    }),
    metadata: READ_METADATA,
    runPolicy: RunPolicies.network,
    target: () => ({ what: 'the repository listing of the authenticated user' }),
    async run({ affiliation, visibility, sort, perPage, cursor }, octokit, context) {
      const query = fingerprintQuery({ tool: 'repos', affiliation, visibility, sort, perPage });
      const page = startPage(cursor, query);
      if (typeof page !== 'number') return page;
      const response = await octokit.rest.repos.listForAuthenticatedUser({
        affiliation: affiliation.join(','),
        visibility,
        sort,
        direction: sort === 'full_name' ? 'asc' : 'desc',
        per_page: perPage,
        page,
        request: { signal: context.signal },
      });
      const nextPage = nextPageFromLink(response.headers.link);
      const nextCursor =
        nextPage === undefined ? undefined : encodeCursor({ page: nextPage, query });
      const tally = new CleaningTally();
      const visible = response.data.filter((repo) =>
        shared.scope.allows(repo.owner.login, repo.name),
      );
      const repos = visible.map((repo) => ({
        fullName: outsideLine(tally, repo.full_name, 200),
        private: repo.private === true,
        description: repo.description === null ? null : tally.clean(String(repo.description)),
        defaultBranch: outsideLine(tally, repo.default_branch, 255),
        language:
          repo.language === null || repo.language === undefined
            ? null
            : outsideLine(tally, repo.language, 50),
        stars: countOf(repo.stargazers_count),
        fork: repo.fork === true,
        archived: repo.archived === true,
        updatedAt:
          repo.updated_at === null || repo.updated_at === undefined
            ? null
            : outsideLine(tally, repo.updated_at, 50),
        htmlUrl: outsideLine(tally, repo.html_url),
      }));
      const hiddenByScope = response.data.length - visible.length;
      const data = { repos, hiddenByScope, ...(nextCursor ? { nextCursor } : {}) };
      const hidden =
        hiddenByScope > 0 ? ` (${hiddenByScope} outside the allowed repositories not shown)` : '';
      if (repos.length === 0) {
        return successResult(
          `No repositories on page ${page}${hidden}. ${pageFooter(nextCursor)}`,
          { data },
        );
      }
      const lines = repos.map(
        (repo) =>
          `${repo.fullName}${repo.private ? ' [private]' : ''}${repo.archived ? ' [archived]' : ''}${repo.fork ? ' [fork]' : ''} · ${repo.language ?? 'no language'} · ★${repo.stars} · default branch ${repo.defaultBranch} · updated ${repo.updatedAt?.slice(0, 10) ?? '?'}${repo.description ? ` — ${truncate(oneLine(repo.description), 200)}` : ''}`,
      );
      const content = [
        `${repos.length} repositories, page ${page}${hidden}:`,
        untrustedBlock(lines, tally),
        pageFooter(nextCursor),
      ].join('\n');
      return successResult(content + rateLimitNote(readRateLimit(response.headers)), { data });
    },
  });
}
