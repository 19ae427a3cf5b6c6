import {
  type AnyToolDefinition,
  RunPolicies,
  successResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { CleaningTally } from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import { LOGIN } from './argument-fields.js';
import { defineGitHubTool, type GitHubToolShared, READ_METADATA } from './github-tool.js';
import { countOf, outsideLine } from './outside-values.js';
import { readRateLimit } from './rate-limit.js';
import { untrustedBlock } from './result-text.js';

const getUserSchema = ToolSchema.object({
  username: z
    .string()
    .regex(LOGIN, 'expected a GitHub login')
    .optional()
    .describe(
      'Login of the user or organisation to look up. Omit for the account the token belongs to.',
    ),
});

/** `github_get_user`: the token owner's account, or any user or organisation by login. */
export function createGetUserTool(shared: GitHubToolShared): AnyToolDefinition {
  return defineGitHubTool(shared, {
    id: 'github_get_user',
    description:
      'Gets a GitHub account: the one the token belongs to (no arguments) or any user or organisation by login. Returns login, type, name, bio, public repository and follower counts and the rate-limit budget left. Use github_list_repos for its repositories.',
    inputSchema: getUserSchema,
    outputSchema: ToolSchema.object({
      login: z.string(),
      id: z.number(),
      type: z.string(),
      name: z.string().nullable(),
      company: z.string().nullable(),
      location: z.string().nullable(),
      bio: z.string().nullable(),
      publicRepos: z.number(),
      followers: z.number(),
      following: z.number(),
      htmlUrl: z.string(),
      createdAt: z.string(),
      rateLimit: z
        .object({ remaining: z.number(), limit: z.number(), resetAt: z.string() })
        .optional(),
    }),
    metadata: READ_METADATA,
    runPolicy: RunPolicies.network,
    target: ({ username }) => ({ what: username ? `user ${username}` : 'the authenticated user' }),
    async run({ username }, octokit, context) {
      const response = username
        ? await octokit.rest.users.getByUsername({ username, request: { signal: context.signal } })
        : await octokit.rest.users.getAuthenticated({ request: { signal: context.signal } });
      const user = response.data;
      const tally = new CleaningTally();
      const clean = (value: string | null | undefined) =>
        value === null || value === undefined ? null : tally.clean(String(value));
      const rateLimit = readRateLimit(response.headers);
      const data = {
        login: outsideLine(tally, user.login, 100),
        id: countOf(user.id),
        type: outsideLine(tally, user.type, 50),
        name: clean(user.name),
        company: clean(user.company),
        location: clean(user.location),
        bio: clean(user.bio),
        publicRepos: countOf(user.public_repos),
        followers: countOf(user.followers),
        following: countOf(user.following),
        htmlUrl: outsideLine(tally, user.html_url),
        createdAt: outsideLine(tally, user.created_at, 50),
        ...(rateLimit ? { rateLimit } : {}),
      };
      const profile = [
        `login: ${data.login} (${data.type}), since ${data.createdAt.slice(0, 10)}, ${data.htmlUrl}`,
        `name: ${data.name ?? '(none)'}`,
        `company: ${data.company ?? '(none)'}`,
        `location: ${data.location ?? '(none)'}`,
        `bio: ${data.bio ?? '(none)'}`,
      ];
      const content = [
        `GitHub account ${username ?? 'of the token owner'}: ${data.publicRepos} public repositories, ${data.followers} followers.`,
        rateLimit
          ? `Rate limit: ${rateLimit.remaining} of ${rateLimit.limit} left until ${rateLimit.resetAt}.`
          : '',
        untrustedBlock(profile, tally),
      ]
        .filter(Boolean)
        .join('\n');
      return successResult(content, { data });
    },
  });
}
