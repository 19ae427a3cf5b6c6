// download_file: a URL saved into the workspace through a private part file, checked and committed.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat } from 'node:fs/promises';
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { resolveWorkspacePath, TargetExistsError, withWorkspacePartFile } from '@toolsys/platform';
import { z } from 'zod';
import { downloadToPartial } from './download-to-partial.js';
import { type NetworkSettings, urlField } from './shared.js';

const CHECKSUM = /^(sha256|sha512|sha1|md5):([0-9a-fA-F]+)$/;
const DIGEST_LENGTHS: Record<string, number> = { sha256: 64, sha512: 128, sha1: 40, md5: 32 };

const downloadSchema = ToolSchema.object({
  url: urlField,
  path: z.string().min(1).max(4_096).describe('Workspace-relative destination.'),
  checksum: z
    .string()
    .regex(CHECKSUM, 'expected "<algorithm>:<hex digest>" with sha256, sha512, sha1 or md5')
    .optional()
    .describe('E.g. "sha256:9f86…".'),
  overwrite: z.boolean().default(false).describe('Replace an existing file.'),
  resume: z.boolean().default(true).describe('Resume a partial download.'),
});

/** The `download_file` tool. */
export function createDownloadFileTool(settings: NetworkSettings): AnyToolDefinition {
  return defineTool({
    id: 'download_file',
    description:
      'Downloads a URL to a workspace file, resuming and optionally checking a checksum.',
    inputSchema: downloadSchema,
    outputSchema: ToolSchema.object({
      path: z.string(),
      bytes: z.number(),
      resumedFrom: z.number(),
      sha256: z.string(),
      contentType: z.string(),
    }),
    metadata: {
      category: 'network',
      risk: 'MEDIUM',
      tags: ['web', 'file'],
      annotations: { ...ToolHints.mutating, idempotentHint: true, openWorldHint: true },
      // Calls can take minutes: a client that supports tasks may run one as a task.
      taskSupport: 'optional',
    },
    runPolicy: RunPolicies.network,
    async execute({ url, path, checksum, overwrite, resume }, context) {
      const [, algorithm = 'sha256', digest = ''] = CHECKSUM.exec(checksum ?? '') ?? [];
      if (checksum && digest.length !== DIGEST_LENGTHS[algorithm]) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `checksum: a ${algorithm} digest has ${DIGEST_LENGTHS[algorithm]} hex digits, got ${digest.length}.`,
          { field: 'checksum' },
        );
      }
      const target = await resolveWorkspacePath(settings.workspaceRoot, path, {
        field: 'path',
        allowRoot: false,
      });
      const existing = await lstat(target.absolute).catch(() => undefined);
      if (existing?.isDirectory()) {
        return failureResult(ToolErrorCode.INVALID_ARGUMENT, `path: "${path}" is a directory.`, {
          field: 'path',
          hint: 'Give a file name inside the directory.',
        });
      }
      if (existing && !overwrite) {
        return failureResult(ToolErrorCode.INVALID_ARGUMENT, `path: "${path}" already exists.`, {
          field: 'path',
          hint: 'Choose another path, or pass overwrite=true to replace it.',
        });
      }
      // The part file is private (a hidden name of its own, never the user's `<name>.part`) and
      // held open in its folder from the first byte to the commit, so a folder swapped for a link
      // meanwhile cannot send the download outside the workspace. Without overwrite the commit
      // never replaces: a file saved at `path` during the download is kept.
      const partKey = createHash('sha256')
        .update(`${url}\0${target.relative}`)
        .digest('hex')
        .slice(0, 16);
      return withWorkspacePartFile(
        target,
        { key: `download-${partKey}`, keepExisting: resume, replace: overwrite },
        async (part) => {
          const downloaded = await downloadToPartial(settings, context, url, part.path, path);
          if (!downloaded.ok) {
            if (downloaded.discard) await part.discard();
            return downloaded.failure;
          }
          const sha256 = await hashFile(part.path, 'sha256');
          if (checksum) {
            const [, algorithm = 'sha256', expected = ''] = CHECKSUM.exec(checksum) ?? [];
            const actual = algorithm === 'sha256' ? sha256 : await hashFile(part.path, algorithm);
            if (actual !== expected.toLowerCase()) {
              await part.discard();
              return failureResult(
                ToolErrorCode.EXECUTION_FAILED,
                `Checksum mismatch for ${path}: expected ${algorithm}:${expected.toLowerCase()}, got ${algorithm}:${actual}. The download was discarded.`,
                {
                  retryable: false,
                  hint: 'Check the checksum and the URL; the server sent different content.',
                  details: { expected: expected.toLowerCase(), actual, algorithm },
                },
              );
            }
          }
          try {
            await part.commit();
          } catch (error) {
            if (!(error instanceof TargetExistsError)) throw error;
            await part.discard();
            return failureResult(
              ToolErrorCode.INVALID_ARGUMENT,
              `path: "${path}" already exists: it was created while the file downloaded, and was kept. The download was discarded.`,
              {
                field: 'path',
                hint: 'Choose another path, or pass overwrite=true to replace it.',
              },
            );
          }
          const { bytes, resumedFrom, contentType } = downloaded;
          const resumedText = resumedFrom > 0 ? `, resumed from byte ${resumedFrom}` : '';
          return successResult(
            `Downloaded ${bytes} bytes to ${path}${resumedText} (sha256 ${sha256}).`,
            { data: { path, bytes, resumedFrom, sha256, contentType } },
          );
        },
      );
    },
  });
}

async function hashFile(file: string, algorithm: string): Promise<string> {
  const hash = createHash(algorithm);
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
