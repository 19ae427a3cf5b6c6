import { openDeployment, splitArgs } from './shared.js';
import { type CliCommand, UsageError } from './types.js';

/** `toolsys doctor`: which packages are on, which are off, and why. */
export const doctorCommand: CliCommand = {
  name: 'doctor',
  summary: 'Show which packages are on or off and why (backends found, plugins loaded).',
  usage: 'toolsys doctor [--json] [--config FILE]',
  async run(args, io) {
    const { flags, values, positionals } = splitArgs(args, {
      booleans: ['json'],
      values: ['config'],
    });
    if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}".`);
    const deployment = await openDeployment(io, { configPath: values.get('config') });
    try {
      const packages = [...deployment.statuses.entries()].map(([key, status]) => ({
        key,
        name: status.name,
        enabled: status.enabled,
        reason: status.reason,
        tools: status.tools,
      }));
      const report = {
        config: deployment.config.file ?? null,
        workspaceRoot: deployment.config.workspaceRoot,
        dataDir: deployment.config.dataDir,
        tools: deployment.registry.size,
        toolMode: deployment.toolMode,
        packages,
      };
      if (flags.has('json')) {
        io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return 0;
      }
      const width = Math.max(...packages.map((entry) => entry.key.length), 8);
      const lines = [
        `config:    ${report.config ?? 'embedded default (no toolsys.config.json)'}`,
        `workspace: ${report.workspaceRoot}`,
        `data:      ${report.dataDir}`,
        '',
        'packages:',
        ...packages.map(
          (entry) =>
            `  ${entry.enabled ? 'on ' : 'off'}  ${entry.key.padEnd(width)}  ${entry.enabled ? `${entry.tools} tools; ` : ''}${entry.reason}`,
        ),
        '',
        `${report.tools} tools in this deployment; MCP clients list ${report.toolMode === 'discover' ? 'only tool_search, tool_describe and tool_call (tools.mode "discover")' : 'every tool'}`,
        '',
      ];
      io.stdout.write(lines.join('\n'));
      return 0;
    } finally {
      await deployment.close();
    }
  },
};
