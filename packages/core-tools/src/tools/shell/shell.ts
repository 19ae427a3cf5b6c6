import { stat } from 'node:fs/promises';
import {
  type AnyToolDefinition,
  createSecretStreamScrubber,
  defineTool,
  escapeInvisible,
  failureResult,
  markUntrusted,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
  untrustedMarkers,
  withSecretScrubbing,
} from '@toolsys/core-tool-registry';
import {
  approvedEnvironment,
  buildSandboxArguments,
  type CapturedOutput,
  classifyCommand,
  prepareGitWrapper,
  probeCommandSandbox,
  resolveWorkspacePath,
  runProcess,
  sandboxEnvironment,
} from '@toolsys/platform';
import { z } from 'zod';

/** Options for {@link createShellTools}. */
export interface ShellToolsOptions {
  /** Directory commands run in and are confined to. */
  workspaceRoot: string;
  /** Extra command names (basenames) that run without asking. Default: none. */
  allowCommands?: readonly string[];
  /** Extra command names (basenames) that are always refused. Default: none. */
  denyCommands?: readonly string[];
  /** When false, every command that is not denied needs a confirmation. Default true. */
  useAllowList?: boolean;
  /**
   * Whether commands that run after asking get only the allow-list of {@link approvedEnvironment}
   * (PATH, HOME, locale, terminal … and {@link passEnvironment}). Default true; false passes the
   * whole environment. Commands that run unasked in the sandbox always get only the allow-list
   * of {@link sandboxEnvironment}.
   */
  scrubEnvironment?: boolean;
  /**
   * More variables that commands run after asking receive (`JAVA_HOME`, `GOPATH` …). Names that
   * read as credentials and credential-shaped values are withheld all the same. Default none.
   */
  passEnvironment?: readonly string[];
  /** The environment commands start from. Default: this process's environment. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Timeout when the call gives none, in ms. Default 120 000. */
  defaultTimeoutMs?: number;
  /** Longest timeout a call may ask for, in ms. Default 600 000. */
  maxTimeoutMs?: number;
  /** Bytes kept of each output stream (half head, half tail). Default 32 KiB. */
  maxOutputBytes?: number;
  /**
   * The OS sandbox read-only commands run in without asking. `auto` (default): bubblewrap when
   * its probe passes; `off`: no sandbox, so every command asks. Without a working sandbox nothing
   * runs without asking.
   */
  sandbox?: 'auto' | 'off';
  /** The bubblewrap executable. Default: `bwrap` on PATH. */
  sandboxExecutable?: string;
}

const MAX_COMMAND_LENGTH = 20_000;
const MAX_STDIN_BYTES = 1024 * 1024;

const OUTPUT_NOTICE = untrustedMarkers('terminal').notice;

/**
 * A command's output as the model is shown it: control, bidi, zero-width and tag characters as
 * visible escapes (`\u202e`, `\x1b`), nothing removed, so a file printed by `cat` reads as it is
 * and a hidden character is seen, not obeyed.
 */
function showOutput(text: string): string {
  return escapeInvisible(text, { keepNewlines: true });
}

/** One stream's section: our header line, then the program's text between untrusted markers. */
function section(name: string, output: CapturedOutput): string {
  const size = output.truncated
    ? `${output.totalBytes} bytes, ${output.omittedBytes} omitted in the middle`
    : `${output.totalBytes} bytes`;
  const body = output.text.endsWith('\n') ? output.text.slice(0, -1) : output.text;
  const header = `--- ${name} (${size}) ---`;
  return body === '' ? header : `${header}\n${markUntrusted(showOutput(body), 'terminal')}`;
}

function formatDuration(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

/**
 * `shell_execute`: runs a bash command in the workspace through a three-level permission chain —
 * deny-list (refused without asking), read-only allow-list (runs without asking, and only inside
 * the bubblewrap sandbox of `command-sandbox.ts`; without a working sandbox it asks too), everything
 * else through the injected confirm. Streams output, kills the whole process tree on timeout,
 * and returns the exit code with the head and tail of long output. The tool is self-gated: the
 * risk gate skips it and it asks per command.
 */
export function createShellTools(options: ShellToolsOptions): AnyToolDefinition[] {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 120_000;
  const maxTimeoutMs = Math.max(options.maxTimeoutMs ?? 600_000, 1_000);
  const policy = {
    ...(options.allowCommands === undefined ? {} : { allowCommands: options.allowCommands }),
    ...(options.denyCommands === undefined ? {} : { denyCommands: options.denyCommands }),
    ...(options.useAllowList === undefined ? {} : { useAllowList: options.useAllowList }),
  };
  const shellExecute = defineTool({
    id: 'shell_execute',
    description:
      'Runs a bash command in the workspace and returns its exit code, stdout and stderr (head and tail of long output, with sizes). Read-only commands (ls, cat, grep, git status …) run at once inside an OS sandbox (workspace read-only, no network, nothing outside the workspace but system folders); others ask the user first; destructive commands (rm -rf /, mkfs, fork bombs, raw disk writes, shutdown …) are refused. A non-zero exit code is reported, not treated as a tool failure. The timeout kills the whole process tree. Prefer read_file, search_files and the other file tools for file work.',
    inputSchema: ToolSchema.object({
      command: z
        .string()
        .min(1)
        .max(MAX_COMMAND_LENGTH)
        .describe('The bash command line, e.g. "npm test -- --run" or "ls -la src | head".'),
      cwd: z
        .string()
        .min(1)
        .max(4_096)
        .default('.')
        .describe('Working folder, relative to the workspace root. Default "." (the root).'),
      timeoutMs: z
        .number()
        .int()
        .min(1_000)
        .max(maxTimeoutMs)
        .default(Math.min(defaultTimeoutMs, maxTimeoutMs))
        .describe(`Time limit in ms (1000-${maxTimeoutMs}); the process tree is killed after it.`),
      stdin: z
        .string()
        .max(MAX_STDIN_BYTES)
        .optional()
        .describe('Text to pass on standard input. Default: empty input.'),
    }),
    outputSchema: ToolSchema.object({
      exitCode: z.number().nullable(),
      signal: z.string().nullable(),
      durationMs: z.number(),
      stdout: z.string(),
      stderr: z.string(),
      stdoutBytes: z.number(),
      stderrBytes: z.number(),
      truncated: z.boolean(),
      permission: z.enum(['allow', 'confirm']),
      sandboxed: z.boolean(),
    }),
    metadata: {
      category: 'shell',
      risk: 'HIGH',
      tags: ['process'],
      annotations: { ...ToolHints.destructive, openWorldHint: true, sensitiveAction: true },
    },
    // The command's own timeout governs; the pipeline's limit only backs it up.
    runPolicy: { ...RunPolicies.mutating, timeoutMs: maxTimeoutMs + 15_000 },
    async execute(args, context) {
      const cwd = await resolveWorkspacePath(options.workspaceRoot, args.cwd, { field: 'cwd' });
      const cwdStats = cwd.exists ? await stat(cwd.absolute).catch(() => undefined) : undefined;
      if (cwdStats?.isDirectory() !== true) {
        return failureResult(
          cwdStats === undefined ? ToolErrorCode.NOT_FOUND : ToolErrorCode.INVALID_ARGUMENT,
          `cwd: "${cwd.relative}" is not an existing folder`,
          { field: 'cwd', hint: 'Use a folder inside the workspace (list_files shows them).' },
        );
      }
      let verdict = await classifyCommand(args.command, {
        ...policy,
        workspaceRoot: cwd.root,
        cwd: cwd.absolute,
      });
      let sandbox: { executable: string; arguments: string[] } | undefined;
      if (verdict.kind === 'allow') {
        const status =
          options.sandbox === 'off'
            ? { available: false, reason: 'the command sandbox is turned off' }
            : await probeCommandSandbox(
                options.sandboxExecutable === undefined
                  ? {}
                  : { executable: options.sandboxExecutable },
              );
        if (status.available && status.executable !== undefined) {
          sandbox = {
            executable: status.executable,
            arguments: await buildSandboxArguments({
              workspaceRoot: cwd.root,
              cwd: cwd.absolute,
              executable: status.executable,
              gitWrapper: await prepareGitWrapper(),
              environment: options.environment ?? process.env,
            }),
          };
        } else {
          verdict = {
            kind: 'confirm',
            reason: `${verdict.reason}, but no OS sandbox is available to run it unasked: ${status.reason}`,
          };
        }
      }
      if (verdict.kind === 'deny') {
        return failureResult(
          ToolErrorCode.PERMISSION_DENIED,
          `command refused: ${verdict.reason}`,
          {
            field: 'command',
            hint: 'This command is never run here. Change approach; do not retry it or a variant of it.',
            details: { permission: 'deny', reason: verdict.reason },
          },
        );
      }
      if (verdict.kind === 'confirm') {
        const decision = await context.confirm({
          action: args.command,
          risk: 'HIGH',
          reason: `Run this shell command? (${verdict.reason})`,
        });
        if (decision === 'deny') {
          return failureResult(
            ToolErrorCode.PERMISSION_DENIED,
            `command not run: the user did not allow it (${verdict.reason})`,
            {
              field: 'command',
              hint: 'Change approach: use a read-only command or a file tool, or ask the user what to do.',
              details: { permission: 'confirm', reason: verdict.reason },
            },
          );
        }
      }
      const base = options.environment ?? process.env;
      // A sandboxed command gets an allow-list of variables, never the host's environment.
      const env =
        sandbox !== undefined
          ? sandboxEnvironment(base)
          : options.scrubEnvironment === false
            ? Object.fromEntries(
                Object.entries(base).filter(
                  (entry): entry is [string, string] => entry[1] !== undefined,
                ),
              )
            : approvedEnvironment(base, { pass: options.passEnvironment ?? [] });
      // A credential or key split over chunks is recognised whole: state carries across chunks.
      const streamScrubbers = {
        stdout: createSecretStreamScrubber(),
        stderr: createSecretStreamScrubber(),
      };
      const outcome = await runProcess({
        command: args.command,
        cwd: cwd.absolute,
        env,
        timeoutMs: args.timeoutMs,
        signal: context.signal,
        maxOutputBytes: options.maxOutputBytes ?? 32 * 1024,
        onOutput: (stream, text) => {
          const shown = streamScrubbers[stream].push(text);
          if (shown !== '') context.emit({ type: 'output', stream, text: shown });
        },
        ...(args.stdin === undefined ? {} : { stdin: args.stdin }),
        ...(sandbox === undefined ? {} : { sandbox }),
      });
      for (const stream of ['stdout', 'stderr'] as const) {
        const rest = streamScrubbers[stream].flush();
        if (rest !== '') context.emit({ type: 'output', stream, text: rest });
      }
      context.signal.throwIfAborted();
      const data = {
        exitCode: outcome.exitCode,
        signal: outcome.signal,
        durationMs: outcome.durationMs,
        stdout: showOutput(outcome.stdout.text),
        stderr: showOutput(outcome.stderr.text),
        stdoutBytes: outcome.stdout.totalBytes,
        stderrBytes: outcome.stderr.totalBytes,
        truncated: outcome.stdout.truncated || outcome.stderr.truncated,
        permission: verdict.kind,
        sandboxed: sandbox !== undefined,
      };
      // Program output (a file printed by cat, a hostile script's text) is shown between
      // untrusted-content markers: a printed `Error: [PERMISSION_DENIED]` line cannot pass as ours.
      const parts = [OUTPUT_NOTICE, section('stdout', outcome.stdout)];
      if (outcome.stderr.totalBytes > 0) parts.push(section('stderr', outcome.stderr));
      if (outcome.timedOut) {
        return failureResult(
          ToolErrorCode.TIMEOUT,
          `command timed out after ${formatDuration(args.timeoutMs)}; its process tree was killed.\n${parts.join('\n')}`,
          {
            hint: 'Raise timeoutMs, run a smaller step, or run long jobs in the background with output to a file.',
            retryable: false,
            details: data,
          },
        );
      }
      if (outcome.outputLimited) {
        return failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          `command killed: it printed more than ${outcome.stdout.totalBytes + outcome.stderr.totalBytes} bytes; its process tree was killed.\n${parts.join('\n')}`,
          {
            hint: 'Print less: filter with grep, head or tail, or write long output to a file and read parts of it.',
            retryable: false,
            details: data,
          },
        );
      }
      const status =
        outcome.exitCode === null
          ? `killed by ${outcome.signal ?? 'a signal'}`
          : `exit code ${outcome.exitCode}`;
      return successResult(
        `${status} (${formatDuration(outcome.durationMs)})\n${parts.join('\n')}`,
        {
          data,
        },
      );
    },
  });
  // Output can print credentials (a config file, a log) under any name: shown only scrubbed.
  return [withSecretScrubbing(shellExecute)];
}
