import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  type ToolFailure,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { CleaningTally } from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import {
  isGitRefName,
  normalisePath,
  ownerField,
  pathField,
  repoField,
} from './argument-fields.js';
import { defineGitHubTool, type GitHubToolShared } from './github-tool.js';
import { outsideLine, SHA, shaOf } from './outside-values.js';

const writeFileSchema = ToolSchema.object({
  owner: ownerField,
  repo: repoField,
  path: pathField,
  content: z.string().describe('The complete new file content (UTF-8 text).'),
  message: z.string().min(1).max(1_000).describe('Commit message.'),
  branch: z
    .string()
    .min(1)
    .max(255)
    .refine(isGitRefName, {
      message:
        'expected a branch name as git allows it (no "..", "@{", spaces, control characters or ~^:?*[\\)',
    })
    .optional()
    .describe('Branch to commit to. Default: the repository default branch.'),
  sha: z
    .string()
    .regex(
      /^[0-9a-f]{40}$|^[0-9a-f]{64}$/,
      'expected the 40-character blob sha github_read_file returned',
    )
    .optional()
    .describe(
      'Blob sha of the file as you read it (github_read_file returns it). Required to update an existing file; omit only to create a new one.',
    ),
});

/**
 * `github_write_file`: creates or replaces a whole file with one commit; an update needs the sha
 * that was read, so a file changed since is refused as a conflict.
 */
export function createWriteFileTool(shared: GitHubToolShared): AnyToolDefinition {
  return defineGitHubTool(shared, {
    id: 'github_write_file',
    description:
      'Creates or replaces a whole file in a GitHub repository with one commit on a branch. To update, pass the sha github_read_file returned: if the file changed since, the write is refused with a conflict and nothing is committed (read it again, reapply your change). Without sha it only creates a new file. Returns the commit sha and the new blob sha. Overwrites the file: use a branch for changes to review.',
    inputSchema: writeFileSchema,
    outputSchema: ToolSchema.object({
      path: z.string(),
      created: z.boolean(),
      commitSha: z.string(),
      blobSha: z.string(),
      htmlUrl: z.string().nullable(),
    }),
    metadata: {
      category: 'github',
      risk: 'HIGH',
      tags: ['github', 'remote', 'write'],
      annotations: { ...ToolHints.destructive, openWorldHint: true, sensitiveAction: true },
    },
    runPolicy: RunPolicies.mutating,
    repository: ({ owner, repo }) => ({ owner, repo }),
    target: ({ owner, repo, path, branch }) => ({
      what: `the write of ${normalisePath(path)} in ${owner}/${repo}${branch ? ` on ${branch}` : ''}`,
      repository: `${owner}/${repo}`,
      isWrite: true,
    }),
    async run({ owner, repo, path, content, message, branch, sha }, octokit, context) {
      const filePath = normalisePath(path);
      const bytes = Buffer.from(content, 'utf8');
      if (bytes.length > shared.maxFileBytes) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `content is ${bytes.length} bytes, over the ${shared.maxFileBytes}-byte limit for writing files.`,
          { field: 'content', hint: 'Write a smaller file, or split the content across files.' },
        );
      }
      try {
        const response = await octokit.rest.repos.createOrUpdateFileContents({
          owner,
          repo,
          path: filePath,
          message,
          content: bytes.toString('base64'),
          ...(branch ? { branch } : {}),
          ...(sha ? { sha } : {}),
          request: { signal: context.signal },
        });
        const created = response.status === 201;
        const tally = new CleaningTally();
        const htmlUrl = response.data.content?.html_url;
        const data = {
          path: filePath,
          created,
          commitSha: shaOf(response.data.commit?.sha),
          blobSha: shaOf(response.data.content?.sha),
          htmlUrl: htmlUrl === undefined || htmlUrl === null ? null : outsideLine(tally, htmlUrl),
        };
        const commit = SHA.test(data.commitSha) ? data.commitSha.slice(0, 12) : data.commitSha;
        return successResult(
          `${created ? 'Created' : 'Updated'} ${filePath} in ${owner}/${repo}${branch ? ` on ${branch}` : ''}: commit ${commit}. Its new blob sha is ${data.blobSha}; pass it as sha to write this file again.`,
          { data },
        );
      } catch (error) {
        const conflict = describeWriteConflict(error, { owner, repo, path: filePath, sha });
        if (conflict) return conflict;
        throw error;
      }
    },
  });
}

function describeWriteConflict(
  error: unknown,
  file: { owner: string; repo: string; path: string; sha: string | undefined },
): ToolFailure | undefined {
  const status = (error as { status?: unknown }).status;
  const message = String((error as { message?: unknown }).message ?? '');
  const name = `${file.path} in ${file.owner}/${file.repo}`;
  if (
    status === 409 ||
    (status === 422 && file.sha !== undefined && /does not match|sha/i.test(message))
  ) {
    return failureResult(
      ToolErrorCode.INVALID_ARGUMENT,
      `Conflict: ${name} changed since you read it (sha ${file.sha ?? '(none)'} is not its current version). Nothing was written.`,
      {
        field: 'sha',
        hint: 'Read the file again with github_read_file, reapply your change to the current text, and write with the new sha.',
        details: { status, conflict: true },
      },
    );
  }
  if (status === 422 && file.sha === undefined && /sha/i.test(message)) {
    return failureResult(
      ToolErrorCode.INVALID_ARGUMENT,
      `${name} already exists, so writing it needs the sha of the version you are replacing. Nothing was written.`,
      {
        field: 'sha',
        hint: 'Read the file with github_read_file, check that your change fits its current text, then write again with its sha.',
        details: { status, conflict: true },
      },
    );
  }
  return undefined;
}
