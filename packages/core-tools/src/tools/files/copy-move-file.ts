// copy_move_file: copies or moves a file or folder between two held folders of the workspace.
import { rename } from 'node:fs/promises';
import { sep } from 'node:path';
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
  copyEntry,
  pathInDirectory,
  removeEntry,
  type WorkspaceDirectory,
  type WorkspacePath,
  withParentDirectory,
  withWorkspaceEntry,
} from '@toolsys/platform';
import { z } from 'zod';
import { defineFileTool } from './define-file-tool.js';
import { fileToolMetadata, hint, pathField } from './shared.js';

/** The `copy_move_file` tool. */
export function createCopyMoveFileTool(workspaceRoot: string): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'copy_move_file',
    description: 'Copies or moves a file or folder in the workspace.',
    inputSchema: ToolSchema.object({
      source: pathField('Workspace path.'),
      destination: pathField('Workspace path.'),
      operation: z.enum(['copy', 'move']).describe('Operation.'),
      overwrite: z.boolean().default(false).describe('Replace an existing destination.'),
    }),
    outputSchema: ToolSchema.object({
      source: z.string(),
      destination: z.string(),
      operation: z.enum(['copy', 'move']),
      replaced: z.boolean(),
    }),
    metadata: fileToolMetadata('MEDIUM', ['write'], ToolHints.destructive),
    runPolicy: RunPolicies.mutating,
    async execute(args, context, resolve) {
      const source = await resolve(args.source, {
        field: 'source',
        allowRoot: false,
        followFinalSymlink: false,
      });
      if (!source.exists) {
        return failureResult(
          ToolErrorCode.NOT_FOUND,
          `source: "${source.relative}" does not exist`,
          {
            field: 'source',
            ...hint('Check the path with list_files or glob_files.'),
          },
        );
      }
      let destination: WorkspacePath = await resolve(args.destination, {
        field: 'destination',
        allowRoot: true,
        followFinalSymlink: false,
      });
      const destinationStats = destination.exists
        ? await withWorkspaceEntry(destination, (entry) => entry.handle.stat()).catch(
            () => undefined,
          )
        : undefined;
      if (args.destination.endsWith('/') || destinationStats?.isDirectory() === true) {
        const name = source.relative.split('/').at(-1) ?? source.relative;
        const inside = destination.relative === '.' ? name : `${destination.relative}/${name}`;
        destination = await resolve(inside, {
          field: 'destination',
          allowRoot: false,
          followFinalSymlink: false,
        });
      }
      if (destination.absolute === source.absolute) {
        return failureResult(ToolErrorCode.INVALID_ARGUMENT, 'destination: is the same as source', {
          field: 'destination',
        });
      }
      if (destination.absolute.startsWith(`${source.absolute}${sep}`)) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `destination: "${destination.relative}" is inside source "${source.relative}"`,
          { field: 'destination', ...hint('Choose a destination outside the source folder.') },
        );
      }
      if (destination.exists && !args.overwrite) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `destination: "${destination.relative}" already exists`,
          {
            field: 'overwrite',
            ...hint('Set overwrite to true to replace it, or choose another destination.'),
          },
        );
      }
      context.signal.throwIfAborted();
      const finalDestination = destination;
      // Both folders are held open; every path below resolves through their descriptors.
      await withParentDirectory(source, (sourceDirectory, sourceName) =>
        withParentDirectory(
          finalDestination,
          (destinationDirectory, destinationName) =>
            copyOrMove(
              sourceDirectory,
              sourceName,
              destinationDirectory,
              destinationName,
              args.operation,
              finalDestination.exists,
            ),
          { create: true },
        ),
      );
      const verb = args.operation === 'copy' ? 'Copied' : 'Moved';

      return successResult(`${verb} ${source.relative} to ${destination.relative}.`, {
        data: {
          source: source.relative,
          destination: destination.relative,
          operation: args.operation,
          replaced: destination.exists,
        },
      });
    },
  });
}

/** Copies or moves between two held folders, never following a link (see workspace-fs.ts). */
async function copyOrMove(
  source: WorkspaceDirectory,
  sourceName: string,
  destination: WorkspaceDirectory,
  destinationName: string,
  operation: 'copy' | 'move',
  replace: boolean,
): Promise<void> {
  if (replace) {
    await removeEntry(destination, destinationName).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  if (operation === 'copy') {
    await copyEntry(source, sourceName, destination, destinationName);
    return;
  }
  try {
    await rename(
      pathInDirectory(source, sourceName),
      pathInDirectory(destination, destinationName),
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyEntry(source, sourceName, destination, destinationName);
    await removeEntry(source, sourceName);
  }
}
