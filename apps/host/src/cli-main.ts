import { COMMAND_CATALOG } from './commands/catalog.js';
import { type CliIo, UsageError } from './commands/types.js';
import { HOST_VERSION } from './version.js';
import { wrapText } from './wrap-text.js';

// Only the catalog, the version and the text helpers load statically: `--version`, `--help` and
// usage errors answer before any tool package (or the MCP SDK) is imported.

function helpText(columns = 80): string {
  const width = Math.max(40, Math.min(columns, 100));
  const commands = COMMAND_CATALOG.map((command) => {
    const summary = wrapText(command.summary, { columns: width, indent: 4 });
    const usage = wrapText(command.usage, { columns: width, indent: 6, firstColumn: 2 });
    return `  ${usage}\n    ${summary}`;
  });
  return [
    `toolsys ${HOST_VERSION}: a hardened tool system for LLM agents.`,
    '',
    'Usage:',
    ...commands,
    '',
    '  toolsys --version    Print the version.',
    '  toolsys help         Print this help.',
    '',
    wrapText(
      'Exit codes: 0 success, 1 the tool failed, 2 usage or config error. Config: toolsys.config.json in the current directory, or --config FILE, or $TOOLSYS_CONFIG.',
      { columns: width, indent: 0 },
    ),
    '',
  ].join('\n');
}

/** Runs the CLI with the given arguments; resolves to the exit code. Never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout.write(`${HOST_VERSION}\n`);
    return 0;
  }
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    io.stdout.write(helpText(io.columns));
    return 0;
  }
  const command = COMMAND_CATALOG.find((candidate) => candidate.name === name);
  if (!command) {
    const { ToolSuggester } = await import('@toolsys/core-tool-registry');
    const [closest] = new ToolSuggester().suggest(
      name,
      COMMAND_CATALOG.map((candidate) => candidate.name),
      1,
    );
    io.stderr.write(
      `Unknown command "${name}".${closest ? ` Did you mean "toolsys ${closest}"?` : ''} Run "toolsys help" for the list.\n`,
    );
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(
      `Usage: ${command.usage}\n${wrapText(command.summary, { columns: io.columns ?? 80, indent: 0 })}\n`,
    );
    return 0;
  }
  try {
    // A config error is answered before the command (and any tool package) loads.
    const configProblem = await checkConfig(rest, io);
    if (configProblem !== undefined) {
      io.stderr.write(`${configProblem}\nUsage: ${command.usage}\n`);
      return 2;
    }
    return await (await command.load()).run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${error.message}\nUsage: ${command.usage}\n`);
      return 2;
    }
    io.stderr.write(`toolsys ${name} failed: ${(error as Error).message}\n`);
    return 1;
  }
}

/** The config error of `--config FILE` (or the default config), or undefined when it loads. */
async function checkConfig(args: readonly string[], io: CliIo): Promise<string | undefined> {
  let path: string | undefined;
  for (const [index, arg] of args.entries()) {
    if (arg === '--') break;
    if (arg === '--config') path = args[index + 1];
    else if (arg.startsWith('--config=')) path = arg.slice('--config='.length);
  }
  const { ConfigError, loadDeploymentConfig } = await import('./config.js');
  try {
    loadDeploymentConfig({ env: io.env, ...(path ? { path } : {}) });
    return undefined;
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
}
