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
import type { GitHubOctokit } from '../github-client.js';
import { normalisePath, ownerField, pathField, refField, repoField } from './argument-fields.js';
import { defineGitHubTool, type GitHubToolShared, READ_METADATA } from './github-tool.js';
import { countOf, outsideLine, SHA, shaOf } from './outside-values.js';
import { untrustedBlock } from './result-text.js';

/** Most characters of file text in one result; longer ranges stop at a line and give the next. */
const MAX_TEXT_CHARS = 30_000;

const readFileSchema = ToolSchema.object({
  owner: ownerField,
  repo: repoField,
  path: pathField,
  ref: refField.optional(),
  startLine: z.number().int().min(1).default(1).describe('First line to return (1-based).'),
  maxLines: z
    .number()
    .int()
    .min(1)
    .max(5_000)
    .default(500)
    .describe(
      `Most lines to return (1-5000); a result also stops at ${MAX_TEXT_CHARS} characters and says where to continue.`,
    ),
});

/**
 * `github_read_file`: a range of lines of a file at a ref (within a character budget), or what a
 * directory, binary file, symlink or submodule is; files over the size cap are refused.
 */
export function createReadFileTool(shared: GitHubToolShared): AnyToolDefinition {
  return defineGitHubTool(shared, {
    id: 'github_read_file',
    description: `Reads a file from a GitHub repository at a branch, tag or commit, as a range of lines (500 by default, at most ${MAX_TEXT_CHARS} characters per call; the result says which startLine continues). Returns the text, its blob sha (pass it to github_write_file to update the file) and the total line count; a binary file returns only its size and sha, a directory its entries. Files over the configured size cap are refused: use github_search_code to find the part you need.`,
    inputSchema: readFileSchema,
    outputSchema: ToolSchema.object({
      kind: z.enum(['text', 'binary', 'directory', 'symlink', 'submodule']),
      path: z.string(),
      sha: z.string(),
      size: z.number(),
      startLine: z.number().optional(),
      endLine: z.number().optional(),
      totalLines: z.number().optional(),
      nextStartLine: z.number().optional(),
      text: z.string().optional(),
      entries: z
        .array(z.object({ name: z.string(), type: z.string(), size: z.number(), sha: z.string() }))
        .optional(),
      target: z.string().optional(),
      cleaned: z.object({ invisibleRemoved: z.number(), commentsRemoved: z.number() }).optional(),
      htmlUrl: z.string().nullable(),
    }),
    metadata: READ_METADATA,
    runPolicy: RunPolicies.network,
    repository: ({ owner, repo }) => ({ owner, repo }),
    target: ({ owner, repo, path, ref }) => ({
      what: `file ${normalisePath(path)} in ${owner}/${repo}${ref ? ` at ${ref}` : ''}`,
      repository: `${owner}/${repo}`,
    }),
    async run({ owner, repo, path, ref, startLine, maxLines }, octokit, context) {
      const filePath = normalisePath(path);
      const where = `${owner}/${repo}${ref ? `@${ref}` : ''}`;
      const response = await octokit.rest.repos.getContent({
        owner,
        repo,
        path: filePath,
        ...(ref ? { ref } : {}),
        request: { signal: context.signal },
      });
      const item = response.data;
      const tally = new CleaningTally();
      if (Array.isArray(item)) {
        const entries = item.map((entry) => ({
          name: outsideLine(tally, entry.name),
          type: outsideLine(tally, entry.type, 20),
          size: countOf(entry.size),
          sha: shaOf(entry.sha),
        }));
        const lines = entries.map(
          (entry) =>
            `${entry.type === 'dir' ? `${entry.name}/` : entry.name}${entry.type === 'file' ? ` (${entry.size} bytes)` : entry.type === 'dir' ? '' : ` (${entry.type})`}`,
        );
        return successResult(
          `${filePath} in ${where} is a directory with ${entries.length} entries (read a file by its path):\n${untrustedBlock(lines, tally)}`,
          { data: { kind: 'directory', path: filePath, sha: '', size: 0, entries, htmlUrl: null } },
        );
      }
      const common = {
        path: filePath,
        sha: shaOf(item.sha),
        size: countOf(item.size),
        htmlUrl: item.html_url === null ? null : outsideLine(tally, item.html_url),
      };
      // The listed size is checked before the download, the downloaded bytes after it.
      const tooLarge = (size: number) =>
        failureResult(
          ToolErrorCode.UNSUPPORTED,
          `${filePath} in ${where} is ${size} bytes, over the ${shared.maxFileBytes}-byte limit for reading files.`,
          {
            hint: 'Find the part you need with github_search_code (repo scope), or ask the user to raise maxFileBytes.',
            details: { size, sha: common.sha, maxFileBytes: shared.maxFileBytes },
          },
        );
      if (item.type === 'symlink') {
        const target = outsideLine(tally, 'target' in item ? item.target : '', 1_000);
        return successResult(
          `${filePath} in ${where} is a symbolic link; its target (read that path instead, if it is in this repository):\n${untrustedBlock([target], tally)}`,
          { data: { kind: 'symlink', ...common, target } },
        );
      }
      if (item.type === 'submodule') {
        const target = outsideLine(
          tally,
          'submodule_git_url' in item ? item.submodule_git_url : '',
          1_000,
        );
        return successResult(
          `${filePath} in ${where} is a submodule at commit ${common.sha}; read it in its own repository. Its URL:\n${untrustedBlock([target], tally)}`,
          { data: { kind: 'submodule', ...common, target } },
        );
      }
      if (common.size > shared.maxFileBytes) return tooLarge(common.size);
      const bytes = await readBlobBytes(
        octokit,
        { owner, repo, item, maxBytes: shared.maxFileBytes },
        context.signal,
      );
      if (bytes.length > shared.maxFileBytes) return tooLarge(bytes.length);
      if (isBinary(bytes)) {
        return successResult(
          `${filePath} in ${where} is a binary file (${bytes.length} bytes, sha ${common.sha}); its content is not shown.`,
          { data: { kind: 'binary', ...common } },
        );
      }
      const text = tally.clean(new TextDecoder('utf-8').decode(bytes));
      const all = splitLines(text);
      const totalLines = all.length;
      if (startLine > Math.max(totalLines, 1)) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `startLine ${startLine} is past the end of ${filePath} (${totalLines} lines).`,
          { field: 'startLine', hint: `Use a startLine from 1 to ${Math.max(totalLines, 1)}.` },
        );
      }
      const picked: string[] = [];
      let chars = 0;
      for (let index = startLine - 1; index < totalLines && picked.length < maxLines; index += 1) {
        const line = all[index] ?? '';
        if (picked.length > 0 && chars + line.length + 1 > MAX_TEXT_CHARS) break;
        // A single line longer than the whole budget is cut so the call still makes progress.
        picked.push(
          line.length > MAX_TEXT_CHARS ? `${line.slice(0, MAX_TEXT_CHARS)}… [line cut]` : line,
        );
        chars += line.length + 1;
      }
      const endLine = startLine + picked.length - 1;
      const nextStartLine = endLine < totalLines ? endLine + 1 : undefined;
      const cleaned = tally.toJSON();
      const data = {
        kind: 'text' as const,
        ...common,
        startLine,
        endLine,
        totalLines,
        ...(nextStartLine ? { nextStartLine } : {}),
        text: picked.join('\n'),
        cleaned,
      };
      const differs =
        cleaned.commentsRemoved + cleaned.invisibleRemoved > 0
          ? '\nThe text shown differs from the file: what was removed above is not shown, and writing this text back with github_write_file would drop it.'
          : '';
      const range =
        totalLines === 0 ? 'empty file' : `lines ${startLine}-${endLine} of ${totalLines}`;
      const content = [
        `${filePath} in ${where} (${range}, ${bytes.length} bytes, sha ${common.sha}):`,
        untrustedBlock(picked, tally) + differs,
        nextStartLine ? `More lines: call again with startLine ${nextStartLine}.` : 'End of file.',
      ].join('\n');
      return successResult(content, { data });
    },
  });
}

interface FileItem {
  readonly sha: string;
  readonly size: number;
  readonly content?: string;
  readonly encoding?: string;
}

/** JSON around a blob's base64 content (sha, url, node id …); generous. */
const BLOB_ENVELOPE_BYTES = 64 * 1024;

async function readBlobBytes(
  octokit: GitHubOctokit,
  source: { owner: string; repo: string; item: FileItem; maxBytes: number },
  signal: AbortSignal,
): Promise<Uint8Array> {
  const { item } = source;
  if (
    item.encoding === 'base64' &&
    typeof item.content === 'string' &&
    (item.content !== '' || item.size === 0)
  ) {
    return Buffer.from(item.content, 'base64');
  }
  if (typeof item.sha !== 'string' || !SHA.test(item.sha)) {
    throw new Error('GitHub answered without a valid blob sha');
  }
  // Files of 1-100 MB come back from the contents API without content; the blob API has it, in
  // base64 (4 bytes per 3, with line breaks): the answer is read no further than that needs.
  const blob = await octokit.rest.git.getBlob({
    owner: source.owner,
    repo: source.repo,
    file_sha: item.sha,
    request: {
      signal,
      maxResponseBytes: Math.ceil(((source.maxBytes * 4) / 3) * 1.02) + BLOB_ENVELOPE_BYTES,
    },
  });
  const content = String(blob.data.content ?? '');
  return blob.data.encoding === 'base64'
    ? Buffer.from(content, 'base64')
    : Buffer.from(content, 'utf8');
}

/** A NUL byte in the first 8 KiB, or bytes that are not UTF-8, mean binary (as git decides). */
function isBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 8_192);
  if (head.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return false;
  } catch {
    return true;
  }
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
