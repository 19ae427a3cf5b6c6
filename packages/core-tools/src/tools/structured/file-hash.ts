import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import {
  type AnyToolDefinition,
  failureResult,
  invalidArgument,
  successResult,
  ToolError,
  ToolErrorCode,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { openWorkspaceEntry, resolveWorkspacePath } from '@toolsys/platform';
import { z } from 'zod';
import { defineStructuredTool } from './shared.js';

const ALGORITHMS = [
  'sha256',
  'sha512',
  'sha384',
  'sha1',
  'md5',
  'sha3-256',
  'sha3-512',
  'blake2b512',
] as const;

/** Progress is reported at most once per this many bytes. */
const PROGRESS_STEP = 16 * 1024 * 1024;

/** Options for {@link createFileHashTools}. */
export interface FileHashToolsOptions {
  /** Directory the hashed files must lie in; paths are resolved against it. */
  workspaceRoot: string;
}

const fileHashSchema = ToolSchema.object({
  path: z.string().min(1).max(4_096).describe('Workspace path.'),
  algorithm: z.enum(ALGORITHMS).default('sha256').describe('Algorithm.'),
  encoding: z.enum(['hex', 'base64']).default('hex').describe('Digest encoding.'),
  expected: z.string().min(1).max(200).optional().describe('Digest to compare with.'),
});

function createFileHashTool(options: FileHashToolsOptions): AnyToolDefinition {
  return defineStructuredTool({
    id: 'file_hash',
    description: 'Hashes a workspace file, optionally comparing with a digest.',
    inputSchema: fileHashSchema,
    outputSchema: ToolSchema.object({
      path: z.string(),
      algorithm: z.enum(ALGORITHMS),
      digest: z.string(),
      size: z.number(),
      matches: z.boolean().optional(),
    }),
    tags: ['file', 'hash'],
    async execute(args, context) {
      const target = await resolveWorkspacePath(options.workspaceRoot, args.path);
      if (!target.exists) {
        return failureResult(ToolErrorCode.NOT_FOUND, `path: no file at "${args.path}"`, {
          field: 'path',
          hint: 'Check the name with list_files or glob_files, then retry.',
        });
      }
      // Opened without following links and checked to lie inside the root (see workspace-fs.ts);
      // the stream reads that very file through its descriptor.
      const entry = await openWorkspaceEntry(target);
      try {
        const stats = await entry.handle.stat();
        if (!stats.isFile()) {
          throw invalidArgument(
            'path',
            `"${args.path}" is not a regular file`,
            'Name a file, not a folder.',
          );
        }
        const hash = createHash(args.algorithm);
        let done = 0;
        let reported = 0;
        try {
          const stream = createReadStream(entry.path, { signal: context.signal });
          for await (const chunk of stream) {
            hash.update(chunk as Buffer);
            done += (chunk as Buffer).length;
            if (done - reported >= PROGRESS_STEP) {
              reported = done;
              context.emit({
                type: 'progress',
                progress: done,
                total: stats.size,
                message: 'bytes hashed',
              });
            }
          }
        } catch (error) {
          if (context.signal.aborted) throw error;
          const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
          throw new ToolError(
            ToolErrorCode.EXECUTION_FAILED,
            `path: cannot read "${args.path}" (${code})`,
            { field: 'path', cause: error },
          );
        }
        const digest = hash.digest(args.encoding);
        const data: {
          path: string;
          algorithm: string;
          digest: string;
          size: number;
          matches?: boolean;
        } = { path: target.relative, algorithm: args.algorithm, digest, size: done };
        let content = `${args.algorithm} ${digest}  ${target.relative} (${done} bytes)`;
        if (args.expected !== undefined) {
          const expected = args.expected.trim();
          data.matches =
            args.encoding === 'hex' ? expected.toLowerCase() === digest : expected === digest;
          content += data.matches
            ? '\nMatches the expected digest.'
            : '\nDOES NOT match the expected digest.';
        }
        return successResult(content, { data });
      } finally {
        await entry.handle.close();
      }
    },
  });
}

/** `file_hash`, confined to the workspace root. */
export function createFileHashTools(options: FileHashToolsOptions): AnyToolDefinition[] {
  return [createFileHashTool(options)];
}
