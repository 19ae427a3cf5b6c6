import {
  type AnyToolDefinition,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { CleaningTally } from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import { ownerField, repoField } from './argument-fields.js';
import { defineGitHubTool, type GitHubToolShared } from './github-tool.js';
import { countOf, outsideLine } from './outside-values.js';
import { untrustedBlock } from './result-text.js';

const createIssueSchema = ToolSchema.object({
  owner: ownerField,
  repo: repoField,
  title: z.string().min(1).max(256).describe('Issue title.'),
  body: z.string().max(65_536).optional().describe('Issue body in GitHub Markdown.'),
  labels: z
    .array(z.string().min(1).max(100))
    .max(20)
    .optional()
    .describe(
      'Label names to set (they must exist, or the token needs push access to create them).',
    ),
  assignees: z
    .array(z.string().min(1).max(39))
    .max(10)
    .optional()
    .describe('Logins to assign (they need access to the repository).'),
});

/** `github_create_issue`: opens an issue with a title, body, labels and assignees. */
export function createCreateIssueTool(shared: GitHubToolShared): AnyToolDefinition {
  return defineGitHubTool(shared, {
    id: 'github_create_issue',
    description:
      'Opens a new issue in a GitHub repository with a title, an optional Markdown body, labels and assignees. Not idempotent: calling it twice opens two issues, so check github_list_issues first when unsure. Returns the issue number and URL.',
    inputSchema: createIssueSchema,
    outputSchema: ToolSchema.object({ number: z.number(), htmlUrl: z.string(), title: z.string() }),
    metadata: {
      category: 'github',
      risk: 'MEDIUM',
      tags: ['github', 'remote', 'write'],
      annotations: { ...ToolHints.mutating, openWorldHint: true, sensitiveAction: true },
    },
    runPolicy: RunPolicies.mutating,
    repository: ({ owner, repo }) => ({ owner, repo }),
    target: ({ owner, repo }) => ({
      what: `a new issue in ${owner}/${repo}`,
      repository: `${owner}/${repo}`,
      isWrite: true,
    }),
    async run({ owner, repo, title, body, labels, assignees }, octokit, context) {
      const response = await octokit.rest.issues.create({
        owner,
        repo,
        title,
        ...(body !== undefined ? { body } : {}),
        ...(labels ? { labels } : {}),
        ...(assignees ? { assignees } : {}),
        request: { signal: context.signal },
      });
      const tally = new CleaningTally();
      const data = {
        number: countOf(response.data.number),
        htmlUrl: outsideLine(tally, response.data.html_url),
        title: outsideLine(tally, response.data.title, 1_000),
      };
      return successResult(
        `Opened issue #${data.number} in ${owner}/${repo}.\n${untrustedBlock([`url: ${data.htmlUrl}`, `title: ${data.title}`], tally)}`,
        { data },
      );
    },
  });
}
