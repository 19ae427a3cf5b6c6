// shell_execute: a bash command in the workspace, through the permission chain, with streamed and
// bounded output.
import { stat } from 'node:fs/promises';
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { createSecretStreamScrubber } from '@toolsys/core-tool-registry/text';
import { commandDeniedFailure, resolveWorkspacePath, runProcess } from '@toolsys/platform';
import { z } from 'zod';
import { formatDuration, OUTPUT_NOTICE, section, showOutput } from './command-output.js';
import { commandEnvironment, decideCommandPermission } from './command-permission.js';
import type { ShellToolsOptions } from './shared.js';

const MAX_COMMAND_LENGTH = 20_000;
const MAX_STDIN_BYTES = 1024 * 1024;

/** Where a command that ran unasked ran. */
const SANDBOX_NOTE = 'in the OS sandbox: workspace read-only, no network';
const SANDBOX_NEXT =
  "Note: it ran in the OS sandbox, where it cannot write to the workspace or reach the network. A command that needs to runs outside it only with the user's approval, asked for each command, or when the deployment lists shell_execute in permissions.alwaysAllow.";

/** The `shell_execute` tool, before secret scrubbing (see `createShellTools`). */
export function createShellExecuteTool(options: ShellToolsOptions): AnyToolDefinition {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 120_000;
  const maxTimeoutMs = Math.max(options.maxTimeoutMs ?? 600_000, 1_000);
  return defineTool({
    id: 'shell_execute',
    description:
      'Runs a bash command in the workspace; returns exit code and output. Read-only commands run sandboxed; others ask the user; destructive ones are refused.',
    inputSchema: ToolSchema.object({
      command: z.string().min(1).max(MAX_COMMAND_LENGTH).describe('Bash command line.'),
      cwd: z.string().min(1).max(4_096).default('.').describe('Workspace folder.'),
      timeoutMs: z
        .number()
        .int()
        .min(1_000)
        .max(maxTimeoutMs)
        .default(Math.min(defaultTimeoutMs, maxTimeoutMs))
        .describe('Time limit in ms.'),
      stdin: z.string().max(MAX_STDIN_BYTES).optional().describe('Standard input.'),
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
      // Each command line is classified and, unless read-only in the sandbox, confirmed on its own.
      gatesItself: true,
      // Calls can take minutes: a client that supports tasks may run one as a task.
      taskSupport: 'optional',
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
      const { verdict, sandbox } = await decideCommandPermission({
        command: args.command,
        cwd,
        options,
      });
      if (verdict.kind === 'deny') {
        return commandDeniedFailure(verdict.reason);
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
      const env = commandEnvironment(options, sandbox !== undefined);
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
      const where = sandbox === undefined ? '' : `, ${SANDBOX_NOTE}`;
      // A failure in the sandbox may be the sandbox's doing (a write, a download): say how to
      // run it outside instead of leaving the model to guess.
      if (sandbox !== undefined && outcome.exitCode !== 0) parts.push(SANDBOX_NEXT);
      return successResult(
        `${status} (${formatDuration(outcome.durationMs)}${where})\n${parts.join('\n')}`,
        {
          data,
        },
      );
    },
  });
}
