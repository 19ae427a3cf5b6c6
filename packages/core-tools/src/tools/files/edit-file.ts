// edit_file: exact string replacement in a text file, answered with a unified diff.
import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { lazyModule, openWorkspaceEntry, writeWorkspaceFileAtomic } from '@toolsys/platform';
import { z } from 'zod';
import { defineFileTool } from './define-file-tool.js';
import { BINARY_SNIFF_BYTES, fileToolMetadata, hint, pathField } from './shared.js';
import { readShownEscapes } from './shown-text.js';

const diffModule = lazyModule<typeof import('diff')>('diff', import.meta.url);

const MAX_EDIT_BYTES = 10 * 1024 * 1024;
/**
 * The longest oldString or newString: both together, every character escaped as `\u00XX` (six
 * bytes), still fit in one 64 MiB MCP message, so a valid edit is never refused by the transport.
 */
const MAX_EDIT_STRING = 5 * 1024 * 1024;
const MAX_DIFF_CHARS = 20_000;

function countOccurrences(text: string, search: string): number {
  let count = 0;
  let at = text.indexOf(search);
  while (at >= 0) {
    count += 1;
    at = text.indexOf(search, at + search.length);
  }
  return count;
}

/** The `edit_file` tool. */
export function createEditFileTool(workspaceRoot: string): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'edit_file',
    description:
      'Replaces an exact string in a text file (once, unless replaceAll); returns a diff.',
    inputSchema: ToolSchema.object({
      path: pathField('Workspace path.'),
      oldString: z
        .string()
        .min(1)
        .max(MAX_EDIT_STRING)
        .describe('Exact text, whitespace included.'),
      newString: z.string().max(MAX_EDIT_STRING).describe('Replacement.'),
      replaceAll: z.boolean().default(false).describe('Replace every occurrence.'),
    }),
    outputSchema: ToolSchema.object({
      path: z.string(),
      replacements: z.number(),
      diff: z.string(),
    }),
    metadata: fileToolMetadata('MEDIUM', ['write'], ToolHints.destructive),
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
