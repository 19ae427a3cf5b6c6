import { firstSentence, TOOL_CATEGORIES, type ToolCategory } from '@toolsys/core-tool-registry';
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
      const width = Math.max(8, ...groups.flatMap((g) => g.tools.map((t) => t.id.length)));
      const indent = width + 12;
      // The whole first sentence, wrapped under itself: never cut mid-sentence.
      const columns = Math.max(indent + 30, io.columns ?? 100);
      for (const group of groups) {
        io.stdout.write(`${group.category} (${group.tools.length})\n`);
        for (const tool of group.tools) {
          const sentence = wrapText(firstSentence(tool.description), columns - indent, indent);
          io.stdout.write(
            `  ${tool.id.padEnd(width)}  ${tool.metadata.risk.padEnd(6)}  ${sentence}\n`,
          );
        }
        io.stdout.write('\n');
      }
      const count = groups.reduce((sum, group) => sum + group.tools.length, 0);
      io.stdout.write(`${count} tools\n`);
      return 0;
    } finally {
      await deployment.close();
    }
  },
};
