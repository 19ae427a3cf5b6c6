import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';

/** Where the token came from; shown by doctor and in 401 errors, never the value. */
export type GitHubTokenSource = 'tokenCommand' | 'GITHUB_TOKEN' | 'GH_TOKEN' | 'tokenFile';

/** A token and where it came from. */
export interface ResolvedGitHubToken {
  /** The token value. Never put it in a result, a trace, an error or a log. */
  readonly token: string;
  /** Which source gave it. */
  readonly source: GitHubTokenSource;
}

/** The outcome of {@link resolveGitHubToken}. */
export type GitHubTokenLookup =
  | { readonly found: true; readonly token: ResolvedGitHubToken; readonly skipped: string[] }
  | { readonly found: false; readonly reason: string };

/** Options for {@link resolveGitHubToken}. */
export interface ResolveGitHubTokenOptions {
  /**
   * A command printing the token, run without a shell: an argv array, or a string split on
   * whitespace (no quoting), e.g. `gh auth token`. Tried first.
   */
  tokenCommand?: string | readonly string[] | undefined;
  /** A file holding the token (first line); relative paths resolve against `configDir`. Tried last. */
  tokenFile?: string | undefined;
  /** The environment read for `GITHUB_TOKEN` then `GH_TOKEN` (tried second). */
  env: NodeJS.ProcessEnv;
  /** Directory a relative `tokenFile` resolves against. */
  configDir: string;
  /** Time limit for `tokenCommand`. Default 10 s. */
  commandTimeoutMs?: number;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;
const MAX_TOKEN_LENGTH = 1_000;
const TOKEN_SHAPE = /^[\x21-\x7e]+$/;

/**
 * Finds the GitHub token: `tokenCommand`, then `GITHUB_TOKEN` / `GH_TOKEN`, then `tokenFile`.
 * A source that is configured but fails is skipped and named in the reason (never with a value).
 * Never throws.
 */
export async function resolveGitHubToken(
  options: ResolveGitHubTokenOptions,
): Promise<GitHubTokenLookup> {
  const skipped: string[] = [];
  if (options.tokenCommand !== undefined) {
    const fromCommand = await runTokenCommand(
      options.tokenCommand,
      options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
      options.env,
    );
    if (typeof fromCommand === 'string') {
      return { found: true, token: { token: fromCommand, source: 'tokenCommand' }, skipped };
    }
    skipped.push(`tokenCommand ${fromCommand.problem}`);
  }
  for (const name of ['GITHUB_TOKEN', 'GH_TOKEN'] as const) {
    const value = options.env[name]?.trim();
    if (value) {
      if (isTokenShaped(value))
        return { found: true, token: { token: value, source: name }, skipped };
      skipped.push(`${name} is not a token (spaces or control characters)`);
    }
  }
  if (options.tokenFile !== undefined) {
    const path = isAbsolute(options.tokenFile)
      ? options.tokenFile
      : resolve(options.configDir, options.tokenFile);
    try {
      const value = (await readFile(path, 'utf8')).split(/\r?\n/, 1)[0]?.trim() ?? '';
      if (isTokenShaped(value)) {
        return { found: true, token: { token: value, source: 'tokenFile' }, skipped };
      }
      skipped.push('tokenFile holds no token on its first line');
    } catch (error) {
      skipped.push(
        `tokenFile could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
  const tried = skipped.length > 0 ? ` Tried: ${skipped.join('; ')}.` : '';
  return {
    found: false,
    reason: `no GitHub token: set GITHUB_TOKEN or GH_TOKEN, or configure packages.app-github.tokenCommand (e.g. "gh auth token") or tokenFile.${tried}`,
  };
}

function isTokenShaped(value: string): boolean {
  return value.length > 0 && value.length <= MAX_TOKEN_LENGTH && TOKEN_SHAPE.test(value);
}

function runTokenCommand(
  command: string | readonly string[],
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
): Promise<string | { problem: string }> {
  const argv = typeof command === 'string' ? command.trim().split(/\s+/) : [...command];
  const [file, ...args] = argv;
  if (!file) return Promise.resolve({ problem: 'is empty' });
  return new Promise((done) => {
    execFile(
      file,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024, env, windowsHide: true },
      (error, stdout) => {
        if (error) {
          const failure = error as NodeJS.ErrnoException & { killed?: boolean; code?: unknown };
          if (failure.killed) return done({ problem: `timed out after ${timeoutMs} ms` });
          if (failure.code === 'ENOENT') return done({ problem: `"${file}" was not found` });
          return done({
            problem: `"${file}" failed (exit ${typeof failure.code === 'number' ? failure.code : 'error'})`,
          });
        }
        // Only the first line: its standard error, and anything after, never reach a message.
        const value = String(stdout).split(/\r?\n/, 1)[0]?.trim() ?? '';
        done(isTokenShaped(value) ? value : { problem: `"${file}" printed no token` });
      },
    );
  });
}
