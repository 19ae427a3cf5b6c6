import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { escapeInvisible } from '@toolsys/core-tool-registry/text';
import { findExecutable } from '@toolsys/platform';
import {
  type McpServerConfig,
  type McpStdioServerConfig,
  urlWithoutPassword,
} from './mcp-server-config.js';

/** Where {@link describeServerApproval} looks for the program a stdio server runs. */
export interface ServerApprovalOptions {
  /** The host's own PATH (default: this process's), which the child inherits unless `env.PATH` is set. */
  readonly hostPath?: string | undefined;
  /** The workspace (a cloned repository): an executable inside it is named as such. */
  readonly workspaceRoot?: string | undefined;
}

/**
 * Environment variables that change which program runs or what code it loads. Their values are
 * always shown, whatever their name.
 */
const RUN_CHANGING_VARIABLE =
  /^(PATH|LD_[A-Z_]+|DYLD_[A-Z_]+|NODE_OPTIONS|NODE_PATH|NODE_EXTRA_CA_CERTS|NPM_CONFIG_[A-Z_]+|npm_config_[a-z_]+|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PERL5LIB|PERL5OPT|RUBYLIB|RUBYOPT|GEM_HOME|GEM_PATH|BUNDLE_GEMFILE|CLASSPATH|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|BASH_ENV|ENV|SHELL|SHELLOPTS|PS4|PROMPT_COMMAND|GIT_[A-Z_]+|HOME|XDG_CONFIG_HOME|TMPDIR|COREPACK_[A-Z_]+|UV_[A-Z_]+|PIP_[A-Z_]+|DENO_[A-Z_]+|BUN_[A-Z_]+)$/;

/** Variable names whose values are credentials: shown as `[redacted]` (unless they change what runs). */
const SECRET_VARIABLE = /authorization|cookie|token|password|passwd|secret|api[-_]?key|credential/i;

/**
 * What a person approves before an MCP server is started or contacted, one fact a line: the exact
 * command line (every argument a JSON string), the absolute path of the program that will really
 * run (resolved against the PATH the server gets, and named when it is not found on the host's own
 * PATH or lies inside the workspace), every environment variable with its value (credentials as
 * `[redacted]`, but never a variable that changes what runs), the working directory; for a URL,
 * the URL without its password and every header name. Control, bidi and invisible characters are
 * shown as escapes.
 */
export async function describeServerApproval(
  config: McpServerConfig,
  options: ServerApprovalOptions = {},
): Promise<string> {
  if (config.transport !== 'stdio') return describeHttp(config);
  const lines = [
    [config.command, ...(config.args ?? [])].map((part) => JSON.stringify(part)).join(' '),
    await describeExecutable(config, options),
    ...Object.entries(config.env ?? {}).map(
      ([name, value]) =>
        `environment ${JSON.stringify(name)}: ${
          RUN_CHANGING_VARIABLE.test(name)
            ? `${JSON.stringify(value)} (changes what runs)`
            : SECRET_VARIABLE.test(name)
              ? '[redacted]'
              : JSON.stringify(value)
        }`,
    ),
    ...(config.cwd === undefined ? [] : [`working directory: ${JSON.stringify(config.cwd)}`]),
  ];
  return escapeInvisible(lines.join('\n'), { keepNewlines: true });
}

function describeHttp(config: Exclude<McpServerConfig, McpStdioServerConfig>): string {
  const url = urlWithoutPassword(config.url);
  const headers = Object.keys(config.headers ?? {});
  return escapeInvisible(
    `${config.transport} ${url}${headers.length > 0 ? `\nheaders: ${headers.join(', ')}` : ''}`,
    { keepNewlines: true },
  );
}

async function describeExecutable(
  config: McpStdioServerConfig,
  options: ServerApprovalOptions,
): Promise<string> {
  const cwd = config.cwd ?? process.cwd();
  const hostPath = options.hostPath ?? process.env.PATH ?? '';
  const serverPath = config.env?.PATH ?? hostPath;
  const found = await findExecutable(config.command, { path: serverPath, spawnCwd: cwd });
  if (found === undefined) {
    return `runs: ${JSON.stringify(config.command)}, not found on the PATH the server gets (it will fail to start)`;
  }
  const notes: string[] = [];
  const real = await realpath(found).catch(() => found);
  if (real !== found) notes.push(`a link to ${JSON.stringify(real)}`);
  if (!config.command.includes('/')) {
    const fromHost = await findExecutable(config.command, { path: hostPath, spawnCwd: cwd });
    if (fromHost !== found) {
      notes.push(
        `not the host's own ${JSON.stringify(config.command)} (${fromHost === undefined ? 'none on its PATH' : JSON.stringify(fromHost)}): found through the server's environment PATH`,
      );
    }
  }
  const roots =
    options.workspaceRoot === undefined
      ? []
      : [options.workspaceRoot, await realpath(options.workspaceRoot).catch(() => undefined)];
  const inWorkspace = [found, real].some((path) => roots.some((root) => isInside(path, root)));
  if (inWorkspace) notes.push('inside the workspace: a program the repository itself carries');
  return `runs: ${JSON.stringify(found)}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}

function isInside(path: string, root: string | undefined): boolean {
  if (root === undefined) return false;
  const rest = relative(resolve(root), path);
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest));
}
