import { createReadStream } from 'node:fs';
import { lstat, readdir, realpath, rename, unlink } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  isToolError,
  markUntrusted,
  RunPolicies,
  successResult,
  type ToolContext,
  type ToolDefinition,
  ToolError,
  ToolErrorCode,
  type ToolResult,
  ToolSchema,
  untrustedMarkers,
} from '@toolsys/core-tool-registry';
import {
  buildSandboxArguments,
  copyEntry,
  findExecutable,
  isRipgrepAvailable,
  lazyModule,
  openSubdirectory,
  openWorkspaceDirectory,
  openWorkspaceEntry,
  pathInDirectory,
  probeCommandSandbox,
  type ResolveWorkspacePathOptions,
  removeEntry,
  resolveWorkspacePath,
  searchFiles,
  TargetExistsError,
  type WorkspaceDirectory,
  type WorkspacePath,
  withParentDirectory,
  withWorkspaceEntry,
  writeWorkspaceFileAtomic,
} from '@toolsys/platform';
import { z } from 'zod';
import { readShownEscapes, showFileLine } from './shown-text.js';

const diffModule = lazyModule<typeof import('diff')>('diff');
const tinyglobby = lazyModule<typeof import('tinyglobby')>('tinyglobby');

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

const MAX_PATH_LENGTH = 4_096;
const MAX_WRITE_BYTES = 10 * 1024 * 1024;
const MAX_EDIT_BYTES = 10 * 1024 * 1024;
/**
 * The longest oldString or newString: both together, every character escaped as `\u00XX` (six
 * bytes), still fit in one 64 MiB MCP message, so a valid edit is never refused by the transport.
 */
const MAX_EDIT_STRING = 5 * 1024 * 1024;
const MAX_READ_CAP = 4 * 1024 * 1024;
const DEFAULT_READ_BYTES = 256 * 1024;
const COUNT_LINES_LIMIT = 256 * 1024 * 1024;
const BINARY_SNIFF_BYTES = 8_192;
const MAX_DIFF_CHARS = 20_000;
const FILE_NOTICE = untrustedMarkers('file').notice;
const NEVER_DESCEND = new Set(['node_modules', '.git']);

const pathField = (description: string) =>
  z.string().min(1).max(MAX_PATH_LENGTH).describe(description);

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
type ResolvePath = (
  userPath: string,
  options?: ResolveWorkspacePathOptions,
) => Promise<WorkspacePath>;

/**
 * The group helper: every file tool resolves its paths through {@link resolveWorkspacePath} and
 * any file-system error becomes a result naming a workspace-relative path.
 */
function defineFileTool<TArgs>(
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

function hint(hintText: string) {
  return { hint: hintText };
}

/* ------------------------------------------------------------------------------------------ */
/* read_file                                                                                   */

interface ReadOutcome {
  binary: boolean;
  lines: string[];
  firstLine: number;
  lastLine: number;
  totalLines: number | undefined;
  truncatedByBytes: boolean;
}

async function readLineRange(
  file: string,
  options: {
    startLine: number;
    endLine: number | undefined;
    maxBytes: number;
    signal: AbortSignal;
  },
): Promise<ReadOutcome> {
  const stream = createReadStream(file, { highWaterMark: 64 * 1024 });
  const decoder = new StringDecoder('utf8');
  const lines: string[] = [];
  let outBytes = 0;
  let collecting = true;
  let truncatedByBytes = false;
  let lastLine = options.startLine - 1;
  let lineNumber = 1;
  let pending = '';
  let newlines = 0;
  let bytesRead = 0;
  let lastByte = -1;
  let counted = true;
  let first = true;

  const take = (line: string, number: number) => {
    if (!collecting || number < options.startLine) return;
    if (options.endLine !== undefined && number > options.endLine) {
      collecting = false;
      return;
    }
    const size = Buffer.byteLength(line) + 1;
    if (outBytes + size > options.maxBytes) {
      truncatedByBytes = true;
      collecting = false;
      if (lines.length === 0) {
        // A single line longer than the cap: show its beginning.
        lines.push(Buffer.from(line).subarray(0, options.maxBytes).toString('utf8'));
        lastLine = number;
      }
      return;
    }
    lines.push(line);
    outBytes += size;
    lastLine = number;
  };

  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      options.signal.throwIfAborted();
      if (first) {
        first = false;
        if (chunk.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
          return {
            binary: true,
            lines: [],
            firstLine: 0,
            lastLine: 0,
            totalLines: undefined,
            truncatedByBytes: false,
          };
        }
      }
      bytesRead += chunk.length;
      lastByte = chunk[chunk.length - 1] ?? lastByte;
      let at = chunk.indexOf(10);
      while (at >= 0) {
        newlines += 1;
        at = chunk.indexOf(10, at + 1);
      }
      if (collecting) {
        const parts = (pending + decoder.write(chunk)).split('\n');
        pending = parts.pop() ?? '';
        for (const part of parts) {
          take(part, lineNumber);
          lineNumber += 1;
        }
        // A line longer than the cap is never kept whole: cut it now instead of buffering it.
        if (collecting && pending.length > options.maxBytes + 4_096) {
          if (lineNumber >= options.startLine) take(pending, lineNumber);
          else pending = '';
        }
      } else if (bytesRead > COUNT_LINES_LIMIT) {
        counted = false;
        break;
      }
    }
  } finally {
    stream.destroy();
  }
  const rest = pending + decoder.end();
  if (collecting && rest !== '') take(rest, lineNumber);
  const totalLines = counted ? newlines + (bytesRead > 0 && lastByte !== 10 ? 1 : 0) : undefined;
  return {
    binary: false,
    lines,
    firstLine: options.startLine,
    lastLine,
    totalLines,
    truncatedByBytes,
  };
}

function createReadFileTool(workspaceRoot: string, maxReadBytes: number): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'read_file',
    description:
      'Reads a text file in the workspace, optionally a line range. Long files are cut at a byte cap with a note saying which lines were shown and how to continue; binary files are refused (use file_hash to fingerprint them). Use search_files to find where something is first, list_files or glob_files to find files.',
    inputSchema: ToolSchema.object({
      path: pathField('File path, relative to the workspace root (or absolute inside it).'),
      startLine: z
        .number()
        .int()
        .min(1)
        .default(1)
        .describe('First line to return, 1-based. Default 1.'),
      endLine: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe('Last line to return, inclusive. Default: to the end (within maxBytes).'),
      maxBytes: z
        .number()
        .int()
        .min(1)
        .max(MAX_READ_CAP)
        .default(maxReadBytes)
        .describe(`Most bytes of text to return (up to ${MAX_READ_CAP}).`),
      lineNumbers: z
        .boolean()
        .default(false)
        .describe('Prefix each line with its number and a tab. Default false.'),
    }),
    outputSchema: ToolSchema.object({
      path: z.string(),
      startLine: z.number(),
      endLine: z.number(),
      totalLines: z.number().optional(),
      truncated: z.boolean(),
      sizeBytes: z.number(),
    }),
    metadata: {
      category: 'file',
      risk: 'LOW',
      tags: ['read'],
      annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false },
    },
    runPolicy: RunPolicies.quickRead,
    async execute(args, context, resolve) {
      if (args.endLine !== undefined && args.endLine < args.startLine) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `endLine: ${args.endLine} is before startLine ${args.startLine}`,
          { field: 'endLine' },
        );
      }
      const target = await resolve(args.path);
      const entry = await openWorkspaceEntry(target);
      try {
        const stats = await entry.handle.stat();
        if (stats.isDirectory()) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `path: "${target.relative}" is a folder, not a file`,
            { field: 'path', ...hint('Use list_files to see what the folder contains.') },
          );
        }
        if (!stats.isFile()) {
          return failureResult(
            ToolErrorCode.UNSUPPORTED,
            `path: "${target.relative}" is not a regular file (device, socket or pipe)`,
            { field: 'path' },
          );
        }
        const outcome = await readLineRange(entry.path, {
          startLine: args.startLine,
          endLine: args.endLine,
          maxBytes: args.maxBytes,
          signal: context.signal,
        });
        if (outcome.binary) {
          return failureResult(
            ToolErrorCode.UNSUPPORTED,
            `path: "${target.relative}" is a binary file (${stats.size} bytes); read_file returns text only`,
            {
              field: 'path',
              hint: 'Use file_hash to fingerprint it, or a shell command such as "file" to inspect it.',
              details: { binary: true, sizeBytes: stats.size },
            },
          );
        }
        if (
          outcome.totalLines !== undefined &&
          args.startLine > Math.max(outcome.totalLines, 1) &&
          outcome.lines.length === 0
        ) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `startLine: ${args.startLine} is past the end of "${target.relative}" (${outcome.totalLines} lines)`,
            { field: 'startLine', hint: `Use a startLine between 1 and ${outcome.totalLines}.` },
          );
        }
        const shownLines = outcome.lines.map(showFileLine);
        const body = args.lineNumbers
          ? shownLines.map((line, index) => `${args.startLine + index}\t${line}`).join('\n')
          : shownLines.join('\n');
        const lastShown = Math.max(outcome.lastLine, args.startLine - 1);
        const reachedEnd =
          outcome.totalLines !== undefined &&
          lastShown >= outcome.totalLines &&
          !outcome.truncatedByBytes;
        const partial = args.startLine > 1 || !reachedEnd;
        const of = outcome.totalLines === undefined ? 'a very long file' : `${outcome.totalLines}`;
        const notes: string[] = [];
        if (outcome.truncatedByBytes) {
          notes.push(
            `[truncated: showed lines ${args.startLine}-${lastShown} of ${of} (cap ${args.maxBytes} bytes). Call read_file with startLine=${lastShown + 1} to continue, or raise maxBytes.]`,
          );
        } else if (partial && outcome.lines.length > 0) {
          notes.push(`[lines ${args.startLine}-${lastShown} of ${of}]`);
        }
        if (stats.size === 0) notes.push(`["${target.relative}" is empty]`);
        // The file's lines go between untrusted-content markers: a line such as
        // `Error: [PERMISSION_DENIED] …` in a file cannot pass as this tool's own words.
        const block = body === '' ? '' : `${FILE_NOTICE}\n${markUntrusted(body, 'file')}`;
        const text = [block, ...notes].filter((part) => part !== '').join('\n');
        const data: {
          path: string;
          startLine: number;
          endLine: number;
          totalLines?: number;
          truncated: boolean;
          sizeBytes: number;
        } = {
          path: target.relative,
          startLine: args.startLine,
          endLine: lastShown,
          truncated: outcome.truncatedByBytes,
          sizeBytes: stats.size,
        };
        if (outcome.totalLines !== undefined) data.totalLines = outcome.totalLines;
        return successResult(text, { data });
      } finally {
        await entry.handle.close();
      }
    },
  });
}

/* ------------------------------------------------------------------------------------------ */
/* write_file                                                                                  */

function createWriteFileTool(workspaceRoot: string): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'write_file',
    description:
      'Writes a whole text file in the workspace, atomically (a temp file renamed over the target: an interrupted write leaves the old content). Creates missing folders by default. Overwrites unless overwrite is false. Use edit_file to change part of an existing file.',
    inputSchema: ToolSchema.object({
      path: pathField('File path, relative to the workspace root (or absolute inside it).'),
      content: z
        .string()
        .max(MAX_WRITE_BYTES)
        .describe('The complete new content of the file (UTF-8, up to 10 MiB).'),
      overwrite: z
        .boolean()
        .default(true)
        .describe('Replace an existing file. When false, an existing file is an error.'),
      createDirectories: z
        .boolean()
        .default(true)
        .describe('Create missing parent folders. Default true.'),
    }),
    outputSchema: ToolSchema.object({ path: z.string(), bytes: z.number(), created: z.boolean() }),
    metadata: {
      category: 'file',
      risk: 'MEDIUM',
      tags: ['write'],
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
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

/* ------------------------------------------------------------------------------------------ */
/* edit_file                                                                                   */

function countOccurrences(text: string, search: string): number {
  let count = 0;
  let at = text.indexOf(search);
  while (at >= 0) {
    count += 1;
    at = text.indexOf(search, at + search.length);
  }
  return count;
}

function createEditFileTool(workspaceRoot: string): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'edit_file',
    description:
      'Edits a text file by exact string replacement and returns a unified diff. oldString must appear exactly once (copy it from read_file, with its whitespace and enough surrounding lines to be unique) unless replaceAll is true. Written atomically. Use write_file to replace a whole file.',
    inputSchema: ToolSchema.object({
      path: pathField('File path, relative to the workspace root (or absolute inside it).'),
      oldString: z
        .string()
        .min(1)
        .max(MAX_EDIT_STRING)
        .describe('The exact text to replace, including whitespace and line breaks.'),
      newString: z.string().max(MAX_EDIT_STRING).describe('The text to put in its place.'),
      replaceAll: z
        .boolean()
        .default(false)
        .describe('Replace every occurrence instead of requiring exactly one. Default false.'),
    }),
    outputSchema: ToolSchema.object({
      path: z.string(),
      replacements: z.number(),
      diff: z.string(),
    }),
    metadata: {
      category: 'file',
      risk: 'MEDIUM',
      tags: ['write'],
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    },
    runPolicy: RunPolicies.mutating,
    async execute(args, context, resolve) {
      if (args.oldString === args.newString) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          'newString: is identical to oldString, so nothing would change',
          { field: 'newString' },
        );
      }
      const target = await resolve(args.path);
      const entry = await openWorkspaceEntry(target);
      let stats: Awaited<ReturnType<typeof entry.handle.stat>>;
      let raw: Buffer;
      try {
        stats = await entry.handle.stat();
        raw =
          stats.isFile() && stats.size <= MAX_EDIT_BYTES
            ? await entry.handle.readFile()
            : Buffer.alloc(0);
      } finally {
        await entry.handle.close();
      }
      if (!stats.isFile()) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `path: "${target.relative}" is not a file`,
          { field: 'path' },
        );
      }
      if (stats.size > MAX_EDIT_BYTES) {
        return failureResult(
          ToolErrorCode.UNSUPPORTED,
          `path: "${target.relative}" is ${stats.size} bytes; edit_file edits files up to ${MAX_EDIT_BYTES} bytes`,
          { field: 'path', ...hint('Use a shell command (sed) for very large files.') },
        );
      }
      if (raw.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
        return failureResult(
          ToolErrorCode.UNSUPPORTED,
          `path: "${target.relative}" is a binary file; edit_file edits text`,
          { field: 'path' },
        );
      }
      const before = raw.toString('utf8');
      let { oldString, newString } = args;
      let count = countOccurrences(before, oldString);
      // Models write "\n"; a CRLF file needs "\r\n" for the same lines to match.
      if (count === 0 && before.includes('\r\n') && /(?<!\r)\n/.test(oldString)) {
        oldString = oldString.replace(/\r?\n/g, '\r\n');
        newString = newString.replace(/\r?\n/g, '\r\n');
        count = countOccurrences(before, oldString);
      }
      // read_file shows hidden characters as escapes (`\u202e`); text copied from it names them so.
      let escapesRead = 0;
      if (count === 0) {
        const shownOld = readShownEscapes(oldString);
        if (shownOld.decoded > 0) {
          const shownCount = countOccurrences(before, shownOld.text);
          if (shownCount > 0) {
            oldString = shownOld.text;
            const shownNew = readShownEscapes(newString);
            newString = shownNew.text;
            escapesRead = shownOld.decoded + shownNew.decoded;
            count = shownCount;
          }
        }
      }
      if (count === 0) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `oldString: not found in "${target.relative}"`,
          {
            field: 'oldString',
            hint: 'Read the file with read_file and copy the exact text, including indentation and line breaks.',
          },
        );
      }
      if (count > 1 && !args.replaceAll) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `oldString: appears ${count} times in "${target.relative}"; it must be unique`,
          {
            field: 'oldString',
            hint: 'Include more surrounding lines so it matches once, or set replaceAll to true.',
            details: { occurrences: count },
          },
        );
      }
      const after = before.split(oldString).join(newString);
      context.signal.throwIfAborted();
      await writeWorkspaceFileAtomic(target, after, { signal: context.signal });
      const patch =
        diffModule().createTwoFilesPatch(
          `a/${target.relative}`,
          `b/${target.relative}`,
          before,
          after,
          undefined,
          undefined,
          { context: 3, timeout: 5_000 },
        ) ?? '(diff too large to compute)';
      const diff =
        patch.length > MAX_DIFF_CHARS
          ? `${patch.slice(0, MAX_DIFF_CHARS)}\n… [diff cut at ${MAX_DIFF_CHARS} characters]`
          : patch;
      const plural = count === 1 ? 'replacement' : 'replacements';
      const escapesNote =
        escapesRead > 0
          ? ` The escapes read_file shows for hidden characters (such as \\u202e) were read as those characters (${escapesRead}).`
          : '';
      return successResult(
        `Edited ${target.relative}: ${count} ${plural}.${escapesNote}\n${diff}`,
        {
          data: { path: target.relative, replacements: count, diff },
        },
      );
    },
  });
}

/* ------------------------------------------------------------------------------------------ */
/* list_files                                                                                  */

interface ListedEntry {
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size?: number;
}

function createListFilesTool(workspaceRoot: string): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'list_files',
    description:
      'Lists a folder of the workspace: files (with sizes), folders (ending in "/") and symlinks (ending in "@"), optionally recursively. node_modules and .git are shown but not entered. Paths are relative to the workspace root. Use glob_files to find files by pattern, search_files to search contents.',
    inputSchema: ToolSchema.object({
      path: pathField(
        'Folder to list, relative to the workspace root. Default "." (the root).',
      ).default('.'),
      recursive: z.boolean().default(false).describe('Also list subfolders. Default false.'),
      maxDepth: z
        .number()
        .int()
        .min(1)
        .max(20)
        .default(3)
        .describe('How many levels to descend when recursive (1-20). Default 3.'),
      includeHidden: z
        .boolean()
        .default(false)
        .describe('Include names starting with ".". Default false.'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(5_000)
        .default(500)
        .describe('Most entries to return (1-5000). Default 500.'),
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
    metadata: {
      category: 'file',
      risk: 'LOW',
      tags: ['read'],
      annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false },
    },
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

/* ------------------------------------------------------------------------------------------ */
/* glob_files                                                                                  */

function createGlobFilesTool(workspaceRoot: string): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'glob_files',
    description:
      'Finds files in the workspace by glob pattern ("**/*.ts", "src/**/test_*.py", "*.{json,yaml}"), sorted by path, relative to the workspace root. Does not follow symlinks; skips .git, and node_modules unless the pattern names it. Use search_files to search file contents.',
    inputSchema: ToolSchema.object({
      pattern: z
        .string()
        .min(1)
        .max(1_000)
        .describe(
          'Glob pattern relative to path: *, **, ?, [abc], {a,b}. No ".." and no absolute paths.',
        ),
      path: pathField(
        'Folder to search from, relative to the workspace root. Default ".".',
      ).default('.'),
      includeHidden: z
        .boolean()
        .default(false)
        .describe('Let * and ** match names starting with ".". Default false.'),
      includeDirectories: z
        .boolean()
        .default(false)
        .describe('Also return matching folders. Default false (files only).'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(5_000)
        .default(500)
        .describe('Most paths to return (1-5000). Default 500.'),
    }),
    outputSchema: ToolSchema.object({
      paths: z.array(z.string()),
      total: z.number(),
      truncated: z.boolean(),
    }),
    metadata: {
      category: 'file',
      risk: 'LOW',
      tags: ['read', 'search'],
      annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false },
    },
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

/* ------------------------------------------------------------------------------------------ */
/* search_files                                                                                */

function createSearchFilesTool(
  workspaceRoot: string,
  useRipgrep: boolean,
  ripgrepPath: string,
): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'search_files',
    description:
      'Searches file contents in the workspace for a regular expression (RE2 syntax as in ripgrep: no lookaround or backreferences) or literal text, line by line. Returns path:line: text, ordered by path. Skips binary files, files over 10 MiB, dot files (unless includeHidden), .git and node_modules; does not follow symlinks. Uses ripgrep when installed. Use glob_files to find files by name.',
    inputSchema: ToolSchema.object({
      pattern: z
        .string()
        .min(1)
        .max(1_000)
        .describe('Regular expression (RE2 syntax) or, with literal, plain text to find.'),
      path: pathField(
        'Folder or file to search, relative to the workspace root. Default ".".',
      ).default('.'),
      literal: z.boolean().default(false).describe('Treat pattern as plain text. Default false.'),
      ignoreCase: z.boolean().default(false).describe('Case-insensitive match. Default false.'),
      include: z
        .string()
        .min(1)
        .max(500)
        .optional()
        .describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.py".'),
      includeHidden: z
        .boolean()
        .default(false)
        .describe('Also search dot files and dot folders. Default false.'),
      maxResults: z
        .number()
        .int()
        .min(1)
        .max(2_000)
        .default(200)
        .describe(
          'Most matching lines to return (1-2000). Default 200; the total is still counted.',
        ),
    }),
    outputSchema: ToolSchema.object({
      matches: z.array(z.object({ path: z.string(), line: z.number(), text: z.string() })),
      totalMatches: z.number(),
      truncated: z.boolean(),
      backend: z.enum(['ripgrep', 'node']),
    }),
    metadata: {
      category: 'file',
      risk: 'LOW',
      tags: ['read', 'search'],
      annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false },
    },
    runPolicy: RunPolicies.quickRead,
    async execute(args, context, resolve) {
      const target = await resolve(args.path);
      // ripgrep walks by path: it runs only inside the command sandbox, where a link swapped in
      // during the walk leads nowhere; without the sandbox the Node search reads through held
      // folder descriptors instead.
      const sandbox =
        useRipgrep && (await isRipgrepAvailable(ripgrepPath))
          ? await ripgrepSandbox(ripgrepPath, target)
          : undefined;
      const backend = sandbox === undefined ? 'node' : 'ripgrep';
      const outcome = await searchFiles({
        root: target.root,
        target: target.absolute,
        pattern: args.pattern,
        literal: args.literal,
        ignoreCase: args.ignoreCase,
        ...(args.include === undefined ? {} : { include: args.include }),
        includeHidden: args.includeHidden,
        maxResults: args.maxResults,
        backend,
        ripgrepPath: sandbox?.ripgrep ?? ripgrepPath,
        ...(sandbox === undefined ? {} : { sandbox: sandbox.sandbox }),
        signal: context.signal,
      });
      const lines = outcome.matches.map((match) => `${match.path}:${match.line}: ${match.text}`);
      if (lines.length === 0)
        lines.push(`[no match for "${args.pattern}" in "${target.relative}"]`);
      if (outcome.truncated) {
        lines.push(
          `[${outcome.totalMatches} matching lines; showing the first ${outcome.matches.length}. Narrow path or include, or raise maxResults.]`,
        );
      }
      return successResult(lines.join('\n'), { data: outcome });
    },
  });
}

/* ------------------------------------------------------------------------------------------ */
/* copy_move_file                                                                              */

function createCopyMoveFileTool(workspaceRoot: string): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'copy_move_file',
    description:
      'Copies or moves a file or folder inside the workspace. When destination is an existing folder (or ends with "/"), the source goes inside it. Refuses to replace an existing destination unless overwrite is true. Symlinks are copied as links, never followed.',
    inputSchema: ToolSchema.object({
      source: pathField('What to copy or move, relative to the workspace root.'),
      destination: pathField('Where to put it, relative to the workspace root.'),
      operation: z.enum(['copy', 'move']).describe('"copy" keeps the source; "move" removes it.'),
      overwrite: z
        .boolean()
        .default(false)
        .describe('Replace an existing destination (a folder is replaced whole). Default false.'),
    }),
    outputSchema: ToolSchema.object({
      source: z.string(),
      destination: z.string(),
      operation: z.enum(['copy', 'move']),
      replaced: z.boolean(),
    }),
    metadata: {
      category: 'file',
      risk: 'MEDIUM',
      tags: ['write'],
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    },
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

/**
 * The sandbox ripgrep runs in for a search of `target`, or undefined when there is none or when
 * ripgrep lives outside the system folders the sandbox shows.
 */
async function ripgrepSandbox(
  ripgrepPath: string,
  target: WorkspacePath,
): Promise<{ ripgrep: string; sandbox: { executable: string; arguments: string[] } } | undefined> {
  const status = await probeCommandSandbox();
  if (!status.available || status.executable === undefined) return undefined;
  const found = await findExecutable(ripgrepPath);
  const ripgrep = found === undefined ? undefined : await realpath(found).catch(() => undefined);
  if (ripgrep === undefined || !/^\/(?:usr|bin|sbin)\//.test(ripgrep)) return undefined;
  const stats = await withWorkspaceEntry(target, (entry) => entry.handle.stat());
  const folder = stats.isDirectory() ? target.absolute : dirname(target.absolute);
  return {
    ripgrep,
    sandbox: {
      executable: status.executable,
      arguments: await buildSandboxArguments({
        workspaceRoot: target.root,
        cwd: folder,
        executable: status.executable,
      }),
    },
  };
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

/* ------------------------------------------------------------------------------------------ */
/* delete_file                                                                                 */

function createDeleteFileTool(workspaceRoot: string): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'delete_file',
    description:
      'Deletes a file, a symlink (not its target) or, with recursive, a folder and everything in it, inside the workspace. Refuses the workspace root itself. Cannot be undone.',
    inputSchema: ToolSchema.object({
      path: pathField('What to delete, relative to the workspace root.'),
      recursive: z
        .boolean()
        .default(false)
        .describe('Required to delete a folder that is not empty. Default false.'),
    }),
    outputSchema: ToolSchema.object({
      path: z.string(),
      type: z.enum(['file', 'directory', 'symlink', 'other']),
    }),
    metadata: {
      category: 'file',
      risk: 'HIGH',
      tags: ['write', 'delete'],
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
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
