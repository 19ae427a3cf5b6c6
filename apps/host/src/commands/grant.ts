import { commandInfo } from './catalog.js';
import { openDeployment, splitArgs } from './shared.js';
import { type CliCommand, UsageError } from './types.js';

/**
 * `toolsys grant <id> --everyone [--revoke]`: an operator allows a tool always for every principal
 * (or takes that back) in the deployment's state store, where every running replica reads it
 * within a second; `toolsys grant --list` shows them. Whoever runs the CLI with the deployment's
 * configuration is its operator; no caller of a tool can reach this. Each change is one audit line.
 */
export const grantCommand: CliCommand = {
  ...commandInfo('grant'),
  async run(args, io) {
    const { flags, values, positionals } = splitArgs(args, {
      booleans: ['everyone', 'revoke', 'list'],
      values: ['config'],
    });
    const [id, extra] = positionals;
    if (extra !== undefined) throw new UsageError(`Unexpected argument "${extra}".`);
    if (!flags.has('list')) {
      if (!id) throw new UsageError('Name the tool: toolsys grant <id> --everyone [--revoke].');
      if (!flags.has('everyone')) {
        throw new UsageError(
          'Say whom the grant is for: --everyone (a grant for one person is their own "always" answer).',
        );
      }
    }
    const deployment = await openDeployment(io, { configPath: values.get('config') });
    try {
      const { everyone } = deployment.stack;
      if (flags.has('list')) {
        const tools = await everyone.list();
        io.stdout.write(
          tools.length === 0
            ? 'No tool is allowed for everyone at run time.\n'
            : `${tools.join('\n')}\n`,
        );
        return 0;
      }
      const toolId = id as string;
      const tool = deployment.registry.get(toolId);
      // Only a tool every principal sees: a grant by id must never cover a shortcut or skill tool
      // that some principal defines later under that id.
      if (tool === undefined || tool.definedBy !== undefined) {
        throw new UsageError(
          `"${toolId}" is not a tool of this deployment that every caller sees; toolsys list shows them.`,
        );
      }
      const revoke = flags.has('revoke');
      const changed = revoke ? await everyone.revoke(toolId) : (await everyone.grant(toolId), true);
      const { audit, replicaId } = deployment.stack;
      audit?.append({
        time: new Date().toISOString(),
        principal: { id: 'local', kind: 'local' },
        tool: toolId,
        risk: tool.metadata.risk,
        decision: 'allowed',
        outcome: revoke ? 'grant-everyone-revoked' : 'grant-everyone',
        durationMs: 0,
        ...(replicaId !== undefined ? { replica: replicaId } : {}),
        args: deployment.stack.digestArguments({ everyone: true, revoke }),
      });
      io.stdout.write(
        revoke
          ? changed
            ? `${toolId} is no longer allowed for everyone; callers are asked again (configured allow-lists still apply).\n`
            : `${toolId} was not allowed for everyone at run time; nothing changed.\n`
          : `${toolId} now runs for every caller without asking, on every replica within a second. Undo with: toolsys grant ${toolId} --everyone --revoke\n`,
      );
      return 0;
    } finally {
      await deployment.close();
    }
  },
};
