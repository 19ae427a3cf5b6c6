// The file tools' group helper: paths resolve inside the workspace and a file-system error becomes
// a result naming a workspace-relative path.
import { relative, sep } from 'node:path';
import {
  type AnyToolDefinition,
  defineTool,
  isToolError,
  type ToolContext,
  type ToolDefinition,
  ToolError,
  ToolErrorCode,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import {
  type ResolveWorkspacePathOptions,
  resolveWorkspacePath,
  type WorkspacePath,
} from '@toolsys/platform';

const ERRNO_MESSAGES: Record<string, [ToolErrorCode, string]> = {
  ENOENT: [ToolErrorCode.NOT_FOUND, 'does not exist'],
  EEXIST: [ToolErrorCode.INVALID_ARGUMENT, 'already exists'],
  EISDIR: [ToolErrorCode.INVALID_ARGUMENT, 'is a folder, not a file'],
  ENOTDIR: [ToolErrorCode.INVALID_ARGUMENT, 'has a file where a folder was expected'],
  ENOTEMPTY: [ToolErrorCode.INVALID_ARGUMENT, 'is a folder that is not empty'],
  EACCES: [ToolErrorCode.PERMISSION_DENIED, 'is not accessible (file permissions)'],
  EPERM: [ToolErrorCode.PERMISSION_DENIED, 'cannot be changed (operation not permitted)'],
  EROFS: [ToolErrorCode.PERMISSION_DENIED, 'is on a read-only file system'],
  ENAMETOOLONG: [ToolErrorCode.INVALID_ARGUMENT, 'has a name that is too long'],
  ELOOP: [ToolErrorCode.EXECUTION_FAILED, 'is a loop of symbolic links'],
  ENOSPC: [ToolErrorCode.EXECUTION_FAILED, 'cannot be written: the disk is full'],
  EMFILE: [ToolErrorCode.EXECUTION_FAILED, 'cannot be opened: too many open files'],
};

/**
 * Turns a file-system error into a ToolError whose message names the path relative to the
 * workspace (never a host path the caller did not give).
 */
function describeFileSystemError(error: unknown, root: string | undefined): ToolError {
  const errno = error as NodeJS.ErrnoException;
  const code = typeof errno?.code === 'string' ? errno.code : 'EUNKNOWN';
  const [toolCode, text] = ERRNO_MESSAGES[code] ?? [
    ToolErrorCode.EXECUTION_FAILED,
    `failed (${code})`,
  ];
  let shown = 'the path';
  if (root !== undefined && typeof errno?.path === 'string') {
    const inside = relative(root, errno.path);
    if (!inside.startsWith('..') && !inside.startsWith(sep)) {
      shown = `"${inside === '' ? '.' : inside.split(sep).join('/')}"`;
    }
  }
  return new ToolError(toolCode, `${shown} ${text}`, {
    cause: error,
    hint:
      toolCode === ToolErrorCode.NOT_FOUND
        ? 'Check the path with list_files or glob_files, then retry.'
        : undefined,
  });
}

/** Resolves a user path inside the workspace (see {@link resolveWorkspacePath}). */
export type ResolvePath = (
  userPath: string,
  options?: ResolveWorkspacePathOptions,
) => Promise<WorkspacePath>;

/**
 * The group helper: every file tool resolves its paths through {@link resolveWorkspacePath} and
 * any file-system error becomes a result naming a workspace-relative path.
 */
export function defineFileTool<TArgs>(
  workspaceRoot: string,
  definition: Omit<ToolDefinition<TArgs>, 'execute'> & {
    execute(args: TArgs, context: ToolContext, resolve: ResolvePath): Promise<ToolResult>;
  },
): AnyToolDefinition {
  return defineTool<TArgs>({
    ...definition,
    async execute(args, context) {
      let root: string | undefined;
      const resolve: ResolvePath = async (userPath, options) => {
        const resolved = await resolveWorkspacePath(workspaceRoot, userPath, options);
        root = resolved.root;
        return resolved;
      };
      try {
        return await definition.execute(args, context, resolve);
      } catch (error) {
        if (isToolError(error) || context.signal.aborted) throw error;
        throw describeFileSystemError(error, root);
      }
    },
  });
}
