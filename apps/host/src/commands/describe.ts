import { ToolSuggester } from '@toolsys/core-tool-registry';
import { commandInfo } from './catalog.js';
import { openDeployment, splitArgs } from './shared.js';
import { type CliCommand, UsageError } from './types.js';

/** `toolsys describe <id>`: metadata, annotations and the input JSON Schema. */
export const describeCommand: CliCommand = {
  ...commandInfo('describe'),
  async run(args, io) {
    const { flags, values, positionals } = splitArgs(args, {
      booleans: ['json'],
      values: ['config'],
    });
    const [id, extra] = positionals;
    if (!id) throw new UsageError('Name the tool to describe: toolsys describe <id>.');
    if (extra !== undefined) throw new UsageError(`Unexpected argument "${extra}".`);
    const deployment = await openDeployment(io, { configPath: values.get('config') });
    try {
      const tool = deployment.registry.get(id);
      if (!tool) {
        const suggestions = new ToolSuggester().suggest(id, deployment.registry.ids());
        io.stderr.write(
          `Unknown tool "${id}".${suggestions.length ? ` Did you mean: ${suggestions.join(', ')}?` : ''} toolsys list names every tool.\n`,
        );
        // Nothing ran and nothing failed: the command named something that is not there.
        return 2;
      }
      const description = {
        id: tool.id,
        description: tool.description,
        owner: tool.owner,
        category: tool.metadata.category,
        risk: tool.metadata.risk,
        tags: tool.metadata.tags,
        annotations: tool.metadata.annotations,
        runPolicy: tool.runPolicy ?? null,
        inputSchema: tool.inputSchema.jsonSchema,
        validated: tool.inputSchema.isValidated,
        outputSchema: tool.outputSchema?.jsonSchema ?? null,
      };
      if (flags.has('json')) {
        io.stdout.write(`${JSON.stringify(description, null, 2)}\n`);
        return 0;
      }
      const hints = Object.entries(tool.metadata.annotations)
        .filter(([, value]) => value)
        .map(([key]) => key)
        .join(', ');
      io.stdout.write(
        [
          `${tool.id}  (${tool.metadata.category}, ${tool.metadata.risk} risk, from ${tool.owner})`,
          '',
          tool.description,
          '',
          `annotations: ${hints || 'none'}`,
          `run policy:  ${tool.runPolicy?.name ?? 'legacy'}`,
          tool.metadata.tags.length ? `tags:        ${tool.metadata.tags.join(', ')}` : undefined,
          '',
          'input schema:',
          JSON.stringify(tool.inputSchema.jsonSchema, null, 2),
          '',
        ]
          .filter((line) => line !== undefined)
          .join('\n'),
      );
      return 0;
    } finally {
      await deployment.close();
    }
  },
};
