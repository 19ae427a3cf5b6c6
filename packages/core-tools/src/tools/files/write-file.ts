// write_file: writes a whole text file atomically.
import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { TargetExistsError, withWorkspaceEntry, writeWorkspaceFileAtomic } from '@toolsys/platform';
import { z } from 'zod';
import { defineFileTool } from './define-file-tool.js';
import { fileToolMetadata, hint, pathField } from './shared.js';

const MAX_WRITE_BYTES = 10 * 1024 * 1024;

/** The `write_file` tool. */
export function createWriteFileTool(workspaceRoot: string): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'write_file',
    description: 'Writes a whole workspace text file atomically.',
    inputSchema: ToolSchema.object({
      path: pathField('Workspace path.'),
      content: z.string().max(MAX_WRITE_BYTES).describe('Full content.'),
      overwrite: z.boolean().default(true).describe('Replace an existing file.'),
      createDirectories: z.boolean().default(true).describe('Create parent folders.'),
    }),
    outputSchema: ToolSchema.object({ path: z.string(), bytes: z.number(), created: z.boolean() }),
    metadata: fileToolMetadata('MEDIUM', ['write'], {
      ...ToolHints.destructive,
      idempotentHint: true,
    }),
    runPolicy: RunPolicies.mutating,
    async execute(args, context, resolve) {
      const target = await resolve(args.path, { allowRoot: false });
      if (target.exists) {
        const stats = await withWorkspaceEntry(target, (entry) => entry.handle.stat());
        if (stats.isDirectory()) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `path: "${target.relative}" is a folder; write_file writes files`,
            { field: 'path', ...hint('Choose a file name inside the folder.') },
          );
        }
        if (!args.overwrite) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `path: "${target.relative}" already exists and overwrite is false`,
            {
              field: 'overwrite',
              ...hint(
                'Set overwrite to true to replace it, or use edit_file to change part of it.',
              ),
            },
          );
        }
      }
      const bytes = Buffer.byteLength(args.content);
      try {
        // Without overwrite the commit never replaces (link, not rename): of two calls creating
        // one new path, exactly one creates it and the other is told it exists.
        await writeWorkspaceFileAtomic(target, args.content, {
          signal: context.signal,
          createDirectories: args.createDirectories,
          replace: args.overwrite,
        });
      } catch (error) {
        if (error instanceof TargetExistsError) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `path: "${target.relative}" already exists and overwrite is false (it was created while this call wrote)`,
            {
              field: 'overwrite',
              ...hint(
                'Read it first: another writer created it. Set overwrite to true to replace it.',
              ),
            },
          );
        }
        if (args.createDirectories || (error as NodeJS.ErrnoException).code !== 'ENOENT') {
          throw error;
        }
        return failureResult(
          ToolErrorCode.NOT_FOUND,
          `path: the folder of "${target.relative}" does not exist`,
          {
            field: 'path',
            ...hint('Set createDirectories to true, or create the folder first.'),
          },
        );
      }
      const verb = target.exists ? 'Overwrote' : 'Created';
      return successResult(`${verb} ${target.relative} (${bytes} bytes).`, {
        data: { path: target.relative, bytes, created: !target.exists },
      });
    },
  });
}
