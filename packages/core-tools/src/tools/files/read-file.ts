// read_file: a line range of a text file, cut at a byte cap, between untrusted-content markers.
import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { markUntrusted, untrustedMarkers } from '@toolsys/core-tool-registry/text';
import { openWorkspaceEntry } from '@toolsys/platform';
import { z } from 'zod';
import { MAX_SHOWN_WITH_COPY } from '../shown-with-copy.js';
import { defineFileTool } from './define-file-tool.js';
import { readLineRange } from './read-line-range.js';
import { fileToolMetadata, hint, MAX_READ_CAP, pathField } from './shared.js';
import { showFileLine } from './shown-text.js';

const FILE_NOTICE = untrustedMarkers('file').notice;

/** The `read_file` tool; `maxReadBytes` is the default of its maxBytes argument. */
export function createReadFileTool(workspaceRoot: string, maxReadBytes: number): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'read_file',
    description: 'Reads a workspace text file or a line range; long files are cut with a note.',
    inputSchema: ToolSchema.object({
      path: pathField('Workspace path.'),
      startLine: z.number().int().min(1).default(1).describe('First line (1-based).'),
      endLine: z.number().int().min(1).optional().describe('Last line (inclusive).'),
      maxBytes: z
        .number()
        .int()
        .min(1)
        .max(MAX_READ_CAP)
        .default(Math.min(maxReadBytes, MAX_SHOWN_WITH_COPY))
        .describe('Most bytes.'),
      lineNumbers: z.boolean().default(false).describe('Prefix line numbers.'),
    }),
    outputSchema: ToolSchema.object({
      path: z.string(),
      startLine: z.number(),
      endLine: z.number(),
      totalLines: z.number().optional(),
      truncated: z.boolean(),
      sizeBytes: z.number(),
      content: z.string(),
    }),
    metadata: fileToolMetadata('LOW', ['read'], ToolHints.readOnly),
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
        const cap = Math.min(args.maxBytes, MAX_SHOWN_WITH_COPY);
        const outcome = await readLineRange(entry.path, {
          startLine: args.startLine,
          endLine: args.endLine,
          maxBytes: cap,
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
            `[truncated: showed lines ${args.startLine}-${lastShown} of ${of} (cap ${cap} bytes). Call read_file with startLine=${lastShown + 1} to continue${cap < MAX_SHOWN_WITH_COPY ? ', or raise maxBytes' : ''}.]`,
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
          content: string;
        } = {
          path: target.relative,
          startLine: args.startLine,
          endLine: lastShown,
          truncated: outcome.truncatedByBytes,
          sizeBytes: stats.size,
          // The lines as the text shows them, markers included: a client that gives the model
          // the structured content instead of the text still gives it the file.
          content: block,
        };
        if (outcome.totalLines !== undefined) data.totalLines = outcome.totalLines;
        return successResult(text, { data });
      } finally {
        await entry.handle.close();
      }
    },
  });
}
