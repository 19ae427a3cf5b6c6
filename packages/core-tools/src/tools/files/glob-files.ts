// glob_files: files by glob pattern, kept only when no symbolic link lies on their way.
import { lstat } from 'node:fs/promises';
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
  lazyModule,
  openWorkspaceDirectory,
  pathInDirectory,
  withWorkspaceEntry,
} from '@toolsys/platform';
import { z } from 'zod';
import { defineFileTool } from './define-file-tool.js';
import { fileToolMetadata, hint, listLimitField, pathField } from './shared.js';

const tinyglobby = lazyModule<typeof import('tinyglobby')>('tinyglobby', import.meta.url);

/** The `glob_files` tool. */
export function createGlobFilesTool(workspaceRoot: string): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'glob_files',
    description: 'Finds workspace files by glob; skips .git and node_modules unless named.',
    inputSchema: ToolSchema.object({
      pattern: z.string().min(1).max(1_000).describe('E.g. "**/*.ts".'),
      path: pathField('Workspace folder.').default('.'),
      includeHidden: z.boolean().default(false).describe('Match dot names.'),
      includeDirectories: z.boolean().default(false).describe('Also return folders.'),
      limit: listLimitField('paths'),
    }),
    outputSchema: ToolSchema.object({
      paths: z.array(z.string()),
      total: z.number(),
      truncated: z.boolean(),
    }),
    metadata: fileToolMetadata('LOW', ['read', 'search'], ToolHints.readOnly),
    runPolicy: RunPolicies.quickRead,
    async execute(args, context, resolve) {
      const pattern = args.pattern.replace(/\\/g, '/');
      if (pattern.startsWith('/') || /^[A-Za-z]:/.test(pattern)) {
        return failureResult(
          ToolErrorCode.PERMISSION_DENIED,
          'pattern: must be relative; put the folder in path instead of an absolute pattern',
          { field: 'pattern', ...hint('Use a relative pattern such as "src/**/*.ts".') },
        );
      }
      if (
        pattern
          .split('/')
          .some((segment) => segment === '..' || /^\.\.[{,]|[{,]\.\.(?=[},])/.test(segment))
      ) {
        return failureResult(
          ToolErrorCode.PERMISSION_DENIED,
          'pattern: ".." would leave the search folder; glob_files stays inside the workspace',
          {
            field: 'pattern',
            ...hint('Set path to the folder to search and keep the pattern relative.'),
          },
        );
      }
      const base = await resolve(args.path);
      const baseStats = await withWorkspaceEntry(base, (entry) => entry.handle.stat());
      if (!baseStats.isDirectory()) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `path: "${base.relative}" is not a folder`,
          { field: 'path' },
        );
      }
      const ignore = ['**/.git/**', '**/.git'];
      if (!pattern.includes('node_modules')) ignore.push('**/node_modules/**', '**/node_modules');
      context.signal.throwIfAborted();
      const found = await tinyglobby().glob(pattern, {
        cwd: base.absolute,
        dot: args.includeHidden,
        onlyFiles: !args.includeDirectories,
        followSymbolicLinks: false,
        expandDirectories: false,
        ignore,
      });
      const prefix = base.relative === '.' ? '' : `${base.relative}/`;
      const candidates = found
        .map((path) => `${prefix}${path.replace(/\/$/, '')}`)
        .filter((path) => !path.split('/').includes('..'))
        .sort();
      // The globber walks by path and starts at the pattern's fixed prefix, following a link
      // there (`etclink/*`); keep only paths that exist inside the workspace with no link on the
      // way, checked through held folder descriptors.
      const all = await keepPathsWithoutLinks(base.root, candidates, context.signal);
      const paths = all.slice(0, args.limit);
      const truncated = all.length > paths.length;
      const lines =
        paths.length === 0
          ? [`[no match for "${args.pattern}" in "${base.relative}"]`]
          : [...paths];
      if (truncated) lines.push(`[${all.length} matches; showing the first ${args.limit}]`);
      return successResult(lines.join('\n'), { data: { paths, total: all.length, truncated } });
    },
  });
}

/**
 * The workspace-relative paths that exist with no symbolic link among their folders, in the given
 * order. Each folder is opened once (from the root, O_NOFOLLOW at every step) and its entries are
 * checked through the held descriptor.
 */
async function keepPathsWithoutLinks(
  root: string,
  paths: readonly string[],
  signal: AbortSignal,
): Promise<string[]> {
  const byFolder = new Map<string, string[]>();
  for (const path of paths) {
    const cut = path.lastIndexOf('/');
    const folder = cut < 0 ? '.' : path.slice(0, cut);
    const names = byFolder.get(folder) ?? [];
    names.push(path.slice(cut + 1));
    byFolder.set(folder, names);
  }
  const kept = new Set<string>();
  for (const [folder, names] of byFolder) {
    signal.throwIfAborted();
    const directory = await openWorkspaceDirectory(root, folder).catch(() => undefined);
    if (directory === undefined) continue;
    try {
      for (const name of names) {
        if ((await lstat(pathInDirectory(directory, name)).catch(() => undefined)) !== undefined) {
          kept.add(folder === '.' ? name : `${folder}/${name}`);
        }
      }
    } finally {
      await directory.handle.close();
    }
  }
  return paths.filter((path) => kept.has(path));
}
