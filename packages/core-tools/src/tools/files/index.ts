// The file tools group: builds the eight file tools confined to one workspace.
import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import { createCopyMoveFileTool } from './copy-move-file.js';
import { createDeleteFileTool } from './delete-file.js';
import { createEditFileTool } from './edit-file.js';
import { createGlobFilesTool } from './glob-files.js';
import { createListFilesTool } from './list-files.js';
import { createReadFileTool } from './read-file.js';
import { createSearchFilesTool } from './search-files.js';
import { DEFAULT_READ_BYTES, MAX_READ_CAP } from './shared.js';
import { createWriteFileTool } from './write-file.js';

/** Options for {@link createFileTools}. */
export interface FileToolsOptions {
  /** Directory every path is confined to; it must exist when a tool runs. */
  workspaceRoot: string;
  /** Default cap of the text read_file returns, in bytes. Default 256 KiB (max 4 MiB). */
  maxReadBytes?: number;
  /** Whether search_files uses ripgrep when it is on PATH. Default true. */
  useRipgrep?: boolean;
  /** The ripgrep executable. Default `rg`. */
  ripgrepPath?: string;
}

/**
 * The eight file tools (`read_file` `write_file` `edit_file` `list_files` `glob_files`
 * `search_files` `copy_move_file` `delete_file`), confined to the workspace root: `..` that
 * leaves it, absolute paths outside it and symlinks that escape it are refused with
 * PERMISSION_DENIED. Creating them touches nothing on disk.
 */
export function createFileTools(options: FileToolsOptions): AnyToolDefinition[] {
  const { workspaceRoot } = options;
  const maxReadBytes = Math.min(options.maxReadBytes ?? DEFAULT_READ_BYTES, MAX_READ_CAP);
  return [
    createReadFileTool(workspaceRoot, maxReadBytes),
    createWriteFileTool(workspaceRoot),
    createEditFileTool(workspaceRoot),
    createListFilesTool(workspaceRoot),
    createGlobFilesTool(workspaceRoot),
    createSearchFilesTool(workspaceRoot, options.useRipgrep ?? true, options.ripgrepPath ?? 'rg'),
    createCopyMoveFileTool(workspaceRoot),
    createDeleteFileTool(workspaceRoot),
  ];
}
