// delete_file: deletes a file, a link or a folder inside the workspace.
import { lstat, readdir, unlink } from 'node:fs/promises';
import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { pathInDirectory, removeEntry, withParentDirectory } from '@toolsys/platform';
import { z } from 'zod';
import { defineFileTool } from './define-file-tool.js';
import { fileToolMetadata, hint, pathField } from './shared.js';

/** The `delete_file` tool. */
export function createDeleteFileTool(workspaceRoot: string): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'delete_file',
    description: 'Deletes a file, symlink or (recursive) folder in the workspace.',
    inputSchema: ToolSchema.object({
      path: pathField('Workspace path.'),
      recursive: z.boolean().default(false).describe('Needed for a non-empty folder.'),
    }),
    outputSchema: ToolSchema.object({
      path: z.string(),
      type: z.enum(['file', 'directory', 'symlink', 'other']),
    }),
    metadata: fileToolMetadata('HIGH', ['write', 'delete'], {
      ...ToolHints.destructive,
      idempotentHint: true,
      sensitiveAction: true,
    }),
    runPolicy: RunPolicies.mutating,
    async execute(args, context, resolve) {
      const target = await resolve(args.path, { allowRoot: false, followFinalSymlink: false });
      if (!target.exists) {
        return failureResult(ToolErrorCode.NOT_FOUND, `path: "${target.relative}" does not exist`, {
          field: 'path',
          ...hint('Nothing to delete; check the path with list_files.'),
        });
      }
      return withParentDirectory(target, async (directory, name) => {
        const at = pathInDirectory(directory, name);
        const stats = await lstat(at);
        const type = stats.isSymbolicLink()
          ? 'symlink'
          : stats.isDirectory()
            ? 'directory'
            : stats.isFile()
              ? 'file'
              : 'other';
        context.signal.throwIfAborted();
        if (type === 'directory') {
          const children = await readdir(at);
          if (children.length > 0 && !args.recursive) {
            return failureResult(
              ToolErrorCode.INVALID_ARGUMENT,
              `recursive: "${target.relative}" is a folder with ${children.length} entries; set recursive to true to delete it and its contents`,
              { field: 'recursive' },
            );
          }
          await removeEntry(directory, name);
        } else {
          await unlink(at);
        }
        const what = type === 'directory' ? 'folder' : type;
        return successResult(`Deleted ${what} ${target.relative}.`, {
          data: { path: target.relative, type },
        });
      });
    },
  });
}
