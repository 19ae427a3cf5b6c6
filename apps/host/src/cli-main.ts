import { COMMANDS } from './commands/index.js';
import { type CliIo, UsageError } from './commands/types.js';

function helpText(): string {
  const width = Math.max(...COMMANDS.map((command) => command.usage.length));
  return [
    'toolsys: a hardened tool system for LLM agents.',
    '',
    'Usage:',
    ...COMMANDS.map((command) => `  ${command.usage.padEnd(width)}  ${command.summary}`),
    '',
    'Exit codes: 0 success, 1 the tool failed, 2 usage error.',
    '',
  ].join('\n');
}

/** Runs the CLI with the given arguments; resolves to the exit code. Never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    io.stdout.write(helpText());
    return name ? 0 : 2;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    io.stderr.write(`Unknown command "${name}".\n\n${helpText()}`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${error.message}\nUsage: ${command.usage}\n`);
      return 2;
    }
    io.stderr.write(`toolsys ${name} failed: ${(error as Error).message}\n`);
    return 1;
  }
}
