import {
  firstSentence,
  type RegisteredTool,
  TOOL_CATEGORIES,
  type ToolCategory,
} from '@toolsys/core-tool-registry';
import { wrapText } from '../wrap-text.js';
import { commandInfo } from './catalog.js';
import { openDeployment, splitArgs } from './shared.js';
import { type CliCommand, UsageError } from './types.js';

/** `toolsys list`: the tools grouped by category. */
export const listCommand: CliCommand = {
  ...commandInfo('list'),
  async run(args, io) {
    const { flags, values, positionals } = splitArgs(args, {
      booleans: ['json'],
      values: ['category', 'config'],
    });
    if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}".`);
    const category = values.get('category');
    if (category !== undefined && !TOOL_CATEGORIES.includes(category as ToolCategory)) {
      throw new UsageError(
        `Unknown category "${category}". Categories: ${TOOL_CATEGORIES.join(', ')}.`,
      );
    }
    const deployment = await openDeployment(io, { configPath: values.get('config') });
    try {
      const groups = deployment.registry
        .groupByCategory()
        .filter((group) => category === undefined || group.category === category);
      if (flags.has('json')) {
        const tools = groups.flatMap((group) =>
          group.tools.map((tool) => ({
            id: tool.id,
            category: tool.metadata.category,
            risk: tool.metadata.risk,
            description: firstSentence(tool.description),
            annotations: tool.metadata.annotations,
            owner: tool.owner,
          })),
        );
        io.stdout.write(`${JSON.stringify(tools, null, 2)}\n`);
        return 0;
      }
      io.stdout.write(renderToolList(groups, io.columns ?? 100));
      return 0;
    } finally {
      await deployment.close();
    }
  },
};

/** A description column narrower than this goes under the id instead of beside it. */
const MIN_DESCRIPTION_COLUMNS = 30;

/**
 * The human table of `toolsys list`: per category, one row per tool (id, risk, the whole first
 * sentence of its description), then the count. No line goes past `columns` (unless one word is
 * longer): a description wraps under itself, or, when the terminal leaves it too little room
 * beside the ids, goes on the lines under the id.
 */
export function renderToolList(
  groups: ReadonlyArray<{ category: string; tools: readonly RegisteredTool[] }>,
  columns: number,
): string {
  const width = Math.max(8, ...groups.flatMap((g) => g.tools.map((t) => t.id.length)));
  const indent = width + 12;
  const beside = columns - indent >= MIN_DESCRIPTION_COLUMNS;
  const out: string[] = [];
  for (const group of groups) {
    out.push(`${group.category} (${group.tools.length})`);
    for (const tool of group.tools) {
      const sentence = firstSentence(tool.description);
      const row = `  ${tool.id.padEnd(width)}  ${tool.metadata.risk.padEnd(6)}`;
      out.push(
        beside
          ? `${row}  ${wrapText(sentence, { columns, indent })}`
          : `${row.trimEnd()}\n      ${wrapText(sentence, { columns, indent: 6 })}`,
      );
    }
    out.push('');
  }
  const count = groups.reduce((sum, group) => sum + group.tools.length, 0);
  out.push(`${count} tools`);
  return `${out.join('\n')}\n`;
}
