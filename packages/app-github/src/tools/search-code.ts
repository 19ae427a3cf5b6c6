import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { CleaningTally } from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import { encodeCursor, fingerprintQuery, nextPageFromLink } from '../page-cursor.js';
import { cursorField, FULL_REPO_NAME, LOGIN } from './argument-fields.js';
import {
  defineGitHubTool,
  type GitHubToolShared,
  outsideScope,
  READ_METADATA,
} from './github-tool.js';
import { countOf, outsideLine, shaOf } from './outside-values.js';
import { pageFooter, startPage } from './paging.js';
import { rateLimitNote, readRateLimit } from './rate-limit.js';
import { truncate, untrustedBlock } from './result-text.js';

const searchCodeSchema = ToolSchema.object({
  query: z
    .string()
    .min(1)
    .max(256)
    .describe(
      'What to find: words or "an exact phrase", optionally with qualifiers such as language:ts, path:src/, extension:md. Put the repository or organisation in repo/org, not in the query.',
    ),
  repo: z
    .string()
    .regex(FULL_REPO_NAME, 'expected owner/name (the name not "." or "..")')
    .optional()
    .describe('Search only this repository, as owner/name.'),
  org: z
    .string()
    .regex(LOGIN, 'expected an organisation or user login')
    .optional()
    .describe('Search only repositories of this organisation or user.'),
  perPage: z.number().int().min(1).max(50).default(10).describe('Results per page (1-50).'),
  cursor: cursorField.optional(),
});

const SCOPE_QUALIFIER = /(?:^|\s)-?(?:repo|org|user):/i;

/**
 * `github_search_code`: one page of code search results with their fragments, limited to one
 * repository, one organisation or the allowed scope.
 */
export function createSearchCodeTool(shared: GitHubToolShared): AnyToolDefinition {
  return defineGitHubTool(shared, {
    id: 'github_search_code',
    description:
      'Searches code on the default branches of GitHub repositories, in one repository (repo), one organisation (org) or everywhere the token can see. One page per call; pass nextCursor back for the next. Returns repository, path, blob sha and the matching fragments; read a whole file with github_read_file. GitHub allows about 10 code searches a minute.',
    inputSchema: searchCodeSchema,
    outputSchema: ToolSchema.object({
      totalCount: z.number(),
      incomplete: z.boolean(),
      items: z.array(
        z.object({
          repository: z.string(),
          path: z.string(),
          sha: z.string(),
          htmlUrl: z.string(),
          fragments: z.array(z.string()),
        }),
      ),
      hiddenByScope: z.number(),
      cleaned: z.object({ invisibleRemoved: z.number(), commentsRemoved: z.number() }),
      nextCursor: z.string().optional(),
    }),
    metadata: READ_METADATA,
    runPolicy: RunPolicies.network,
    repository: ({ repo }) => {
      if (!repo) return undefined;
      const [owner = '', name = ''] = repo.split('/');
      return { owner, repo: name };
    },
    target: ({ query }) => ({ what: `the code search "${truncate(query, 80)}"` }),
    async run({ query, repo, org, perPage, cursor }, octokit, context) {
      if (SCOPE_QUALIFIER.test(query)) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          'query contains a repo:, org: or user: qualifier.',
          {
            field: 'query',
            hint: 'Remove it from query and pass the repository in repo (owner/name) or the organisation in org.',
          },
        );
      }
      if (repo && org) {
        return failureResult(ToolErrorCode.INVALID_ARGUMENT, 'repo and org were both given.', {
          field: 'org',
          hint: 'Pass either repo (one repository) or org (all its repositories), not both.',
        });
      }
      const scope = shared.scope;
      if (org && scope.isRestricted && !scope.allows(org, '*')) {
        return outsideScope(scope, `${org}/*`);
      }
      const qualifiers = repo ? [`repo:${repo}`] : org ? [`org:${org}`] : scope.searchQualifiers();
      const q = [query, ...qualifiers].join(' ');
      const fingerprint = fingerprintQuery({ tool: 'code', q, perPage });
      const page = startPage(cursor, fingerprint);
      if (typeof page !== 'number') return page;
      const response = await octokit.rest.search.code({
        q,
        per_page: perPage,
        page,
        headers: { accept: 'application/vnd.github.text-match+json' },
        request: { signal: context.signal },
      });
      const nextPage = nextPageFromLink(response.headers.link);
      const nextCursor =
        nextPage === undefined ? undefined : encodeCursor({ page: nextPage, query: fingerprint });
      const tally = new CleaningTally();
      const inScope = response.data.items.filter((item) =>
        scope.allows(item.repository.owner.login, item.repository.name),
      );
      // The repository is named by the owner and name the scope was checked on.
      const items = inScope.map((item) => ({
        repository: outsideLine(tally, `${item.repository.owner.login}/${item.repository.name}`),
        path: outsideLine(tally, item.path, 1_000),
        sha: shaOf(item.sha),
        htmlUrl: outsideLine(tally, item.html_url),
        fragments: (item.text_matches ?? []).map((match) =>
          truncate(tally.clean(String(match.fragment ?? '')), 600),
        ),
      }));
      const hiddenByScope = response.data.items.length - inScope.length;
      const data = {
        totalCount: countOf(response.data.total_count),
        incomplete: response.data.incomplete_results === true,
        items,
        hiddenByScope,
        cleaned: tally.toJSON(),
        ...(nextCursor ? { nextCursor } : {}),
      };
      const incomplete = data.incomplete ? ' GitHub timed out, so results may be incomplete.' : '';
      if (items.length === 0) {
        return successResult(
          `No code matches "${q}" on page ${page}.${incomplete} ${pageFooter(nextCursor)}`,
          { data },
        );
      }
      const lines = items.map((item) => {
        const fragments = item.fragments.map(
          (fragment) => `  | ${fragment.replace(/\n/g, '\n  | ')}`,
        );
        return [`${item.repository}: ${item.path} (sha ${item.sha})`, ...fragments].join('\n');
      });
      const content = [
        `${data.totalCount} results for "${q}", page ${page} (${items.length} shown${hiddenByScope > 0 ? `, ${hiddenByScope} outside the allowed repositories hidden` : ''}).${incomplete}`,
        untrustedBlock(lines, tally),
        pageFooter(nextCursor),
      ].join('\n');
      return successResult(content + rateLimitNote(readRateLimit(response.headers)), { data });
    },
  });
}
