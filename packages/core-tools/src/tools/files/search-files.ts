// search_files: a content search by ripgrep inside the command sandbox, or by Node.
import {
  type AnyToolDefinition,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { isRipgrepAvailable, searchFiles } from '@toolsys/platform';
import { z } from 'zod';
import { defineFileTool } from './define-file-tool.js';
import { ripgrepSandbox } from './ripgrep-sandbox.js';
import { fileToolMetadata, pathField } from './shared.js';

/** The `search_files` tool; ripgrep at `ripgrepPath` is used when `useRipgrep` and it is found. */
export function createSearchFilesTool(
  workspaceRoot: string,
  useRipgrep: boolean,
  ripgrepPath: string,
): AnyToolDefinition {
  return defineFileTool(workspaceRoot, {
    id: 'search_files',
    description: 'Searches workspace file contents by regex or text; returns path:line: text.',
    inputSchema: ToolSchema.object({
      pattern: z.string().min(1).max(1_000).describe('RE2 regex (or text with literal).'),
      path: pathField('Workspace-relative folder or file.').default('.'),
      literal: z.boolean().default(false).describe('pattern is plain text.'),
      ignoreCase: z.boolean().default(false).describe('Case-insensitive.'),
      include: z.string().min(1).max(500).optional().describe('File glob, e.g. "*.ts".'),
      includeHidden: z.boolean().default(false).describe('Search dot files.'),
      maxResults: z.number().int().min(1).max(2_000).default(200).describe('Most lines.'),
    }),
    outputSchema: ToolSchema.object({
      matches: z.array(z.object({ path: z.string(), line: z.number(), text: z.string() })),
      totalMatches: z.number(),
      truncated: z.boolean(),
      backend: z.enum(['ripgrep', 'node']),
    }),
    // A search of a large repository can outlast a client's patience: it may run as a task.
    metadata: {
      ...fileToolMetadata('LOW', ['read', 'search'], ToolHints.readOnly),
      taskSupport: 'optional',
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
