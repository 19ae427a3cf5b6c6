// list_files: a folder of the workspace, optionally recursive, read through held descriptors.
import { lstat, readdir } from 'node:fs/promises';
import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import {
  openSubdirectory,
  openWorkspaceDirectory,
  pathInDirectory,
  type WorkspaceDirectory,
  withWorkspaceEntry,
} from '@toolsys/platform';
import { z } from 'zod';
import { defineFileTool } from './define-file-tool.js';
import { fileToolMetadata, hint, listLimitField, pathField } from './shared.js';

const NEVER_DESCEND = new Set(['node_modules', '.git']);

interface ListedEntry {
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size?: number;
}

/** The `list_files` tool. */
export function createListFilesTool(workspaceRoot: string): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'list_files',
    description: 'Lists a workspace folder, optionally recursive.',
    inputSchema: ToolSchema.object({
      path: pathField('Workspace folder.').default('.'),
      recursive: z.boolean().default(false).describe('List subfolders.'),
      maxDepth: z.number().int().min(1).max(20).default(3).describe('Levels when recursive.'),
      includeHidden: z.boolean().default(false).describe('Include dot names.'),
      limit: listLimitField('entries'),
    }),
    outputSchema: ToolSchema.object({
      path: z.string(),
      entries: z.array(
        z.object({
          path: z.string(),
          type: z.enum(['file', 'directory', 'symlink', 'other']),
          size: z.number().optional(),
        }),
      ),
      truncated: z.boolean(),
    }),
    metadata: fileToolMetadata('LOW', ['read'], ToolHints.readOnly),
    runPolicy: RunPolicies.quickRead,
    async execute(args, context, resolve) {
      const target = await resolve(args.path);
      const stats = await withWorkspaceEntry(target, (entry) => entry.handle.stat());
      if (!stats.isDirectory()) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `path: "${target.relative}" is a file, not a folder`,
          { field: 'path', ...hint('Use read_file to read it.') },
        );
      }
      const entries: ListedEntry[] = [];
      let truncated = false;
      const prefix = target.relative === '.' ? '' : `${target.relative}/`;
      // Each folder is held open and read through its descriptor: a folder swapped for a link
      // while the walk runs is refused, never followed.
      const walk = async (directory: WorkspaceDirectory, relativePath: string, depth: number) => {
        context.signal.throwIfAborted();
        const children = await readdir(directory.path, { withFileTypes: true });
        children.sort((left, right) =>
          left.name < right.name ? -1 : left.name > right.name ? 1 : 0,
        );
        for (const child of children) {
          if (!args.includeHidden && child.name.startsWith('.')) continue;
          if (entries.length >= args.limit) {
            truncated = true;
            return;
          }
          const childRelative = `${relativePath}${child.name}`;
          const childAbsolute = pathInDirectory(directory, child.name);
          if (child.isSymbolicLink()) {
            entries.push({ path: childRelative, type: 'symlink' });
          } else if (child.isDirectory()) {
            entries.push({ path: childRelative, type: 'directory' });
            if (args.recursive && depth < args.maxDepth && !NEVER_DESCEND.has(child.name)) {
              const inner = await openSubdirectory(directory, child.name);
              try {
                await walk(inner, `${childRelative}/`, depth + 1);
              } finally {
                await inner.handle.close();
              }
            }
          } else if (child.isFile()) {
            const size = await lstat(childAbsolute).then(
              (info) => info.size,
              () => undefined,
            );
            entries.push(
              size === undefined
                ? { path: childRelative, type: 'file' }
                : { path: childRelative, type: 'file', size },
            );
          } else {
            entries.push({ path: childRelative, type: 'other' });
          }
        }
      };
      const top = await openWorkspaceDirectory(target.root, target.relative);
      try {
        await walk(top, prefix, 1);
      } finally {
        await top.handle.close();
      }
      const lines = entries.map((entry) => {
        switch (entry.type) {
          case 'directory':
            return `${entry.path}/`;
          case 'symlink':
            return `${entry.path}@`;
          case 'file':
            return entry.size === undefined ? entry.path : `${entry.path}  (${entry.size} B)`;
          default:
            return `${entry.path}  (special file)`;
        }
      });
      if (lines.length === 0) lines.push(`["${target.relative}" is empty]`);
      if (truncated) {
        lines.push(`[stopped at ${args.limit} entries; list a subfolder or raise limit]`);
      }
      return successResult(lines.join('\n'), {
        data: { path: target.relative, entries, truncated },
      });
    },
  });
}
