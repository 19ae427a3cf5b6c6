import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { LINEAR_REGEX_LIMITS } from '@toolsys/platform';
import { z } from 'zod';
import { PATTERN_OVERLAP_BYTES, PatternScanner } from '../../output-pattern.js';
import type { TerminalManager } from '../../terminal-manager.js';
import {
  defineSessionTool,
  formatMs,
  MAX_WAIT_MS,
  outputBlock,
  sessionIdField,
  showOutputLine,
  WAITING_TOOL_TIMEOUT_MS,
} from '../tool-support.js';
import { progressTicker } from './shared.js';

/** The `terminal.wait` tool. */
export function createTerminalWaitTool(manager: TerminalManager): AnyToolDefinition {
  return defineSessionTool(manager, {
    id: 'terminal.wait',
    description:
      'Waits until a session matches a pattern, goes quiet, ends its command, reaches a state or exits.',
    inputSchema: ToolSchema.object({
      sessionId: sessionIdField,
      for: z.enum(['pattern', 'quiet', 'command_end', 'state', 'exit']).describe('Condition.'),
      pattern: z
        .string()
        .min(1)
        .max(1_000)
        .optional()
        .describe(
          `Regex on new output (multi-line; a match within ${PATTERN_OVERLAP_BYTES} bytes). ${LINEAR_REGEX_LIMITS}`,
        ),
      state: z
        .enum(['idle', 'running', 'waiting_for_input', 'exited'])
        .optional()
        .describe('State to reach.'),
      cursor: z.number().int().min(0).optional().describe('Output offset to start from.'),
      quietMs: z.number().int().min(50).max(60_000).default(1_000).describe('Quiet time.'),
      timeoutMs: z
        .number()
        .int()
        .min(0)
        .max(MAX_WAIT_MS)
        .default(30_000)
        .describe('Longest wait, in ms.'),
    }),
    outputSchema: ToolSchema.object({
      matched: z.boolean(),
      outcome: z.string(),
      state: z.string(),
      waitedMs: z.number(),
      match: z.string().nullable(),
      nextCursor: z.number(),
      exitCode: z.number().nullable(),
    }),
    metadata: {
      category: 'terminal',
      risk: 'LOW',
      tags: ['pty'],
      annotations: ToolHints.readOnly,
      // A wait for a long command can take minutes: a client that supports tasks may poll it.
      taskSupport: 'optional',
    },
    runPolicy: { ...RunPolicies.quickRead, timeoutMs: WAITING_TOOL_TIMEOUT_MS, maxRetries: 0 },
    async execute(session, args, context) {
      let scanner: PatternScanner | undefined;
      const from = args.cursor ?? session.outputEnd;
      if (args.for === 'pattern') {
        if (args.pattern === undefined) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            'pattern: required when for is "pattern"',
            {
              field: 'pattern',
              hint: 'Send {"for": "pattern", "pattern": "Done|Error"}.',
            },
          );
        }
        // Linear-time engine: a pattern from the model can never hold the process (ToolError
        // INVALID_ARGUMENT on `pattern` for what RE2 cannot run, returned by the executor).
        scanner = new PatternScanner(args.pattern, from);
      }
      if (args.for === 'state' && args.state === undefined) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          'state: required when for is "state"',
          {
            field: 'state',
            hint: 'Send {"for": "state", "state": "waiting_for_input"}.',
          },
        );
      }
      const started = Date.now();
      const startSequence = session.lastEventSequence;
      const commandWasActive = session.isCommandActive;
      let match: string | null = null;
      const predicate = async (): Promise<boolean> => {
        switch (args.for) {
          case 'pattern': {
            if (match !== null) return true;
            const found = await scanner?.scan(session);
            match = found === undefined ? null : showOutputLine(found);
            return match !== null;
          }
          case 'quiet':
            return Date.now() - Math.max(session.lastOutputAt, started) >= args.quietMs;
          case 'command_end':
            if (!commandWasActive && session.integration !== 'none') return true;
            return (
              session
                .eventsAfter(startSequence)
                .some((event) => event.kind === 'command_end' || event.kind === 'exit') ||
              (session.integration === 'none' && (await session.state()) === 'idle')
            );
          case 'state':
            return (await session.state()) === args.state;
          case 'exit':
            return session.exit !== undefined;
        }
      };
      const outcome = await session.waitFor(predicate, {
        timeoutMs: args.timeoutMs,
        signal: context.signal,
        onTick: progressTicker(context, args.timeoutMs, `waiting for ${args.for}`),
      });
      const matched = outcome === 'matched' || (outcome === 'exited' && (await predicate()));
      const state = await session.state();
      const waitedMs = Date.now() - started;
      const data = {
        matched,
        outcome: matched ? 'matched' : outcome,
        state,
        waitedMs,
        match,
        nextCursor: session.outputEnd,
        exitCode: session.lastExitCode,
      };
      if (outcome === 'aborted') {
        return failureResult(ToolErrorCode.TIMEOUT, 'the wait was cancelled', {
          retryable: false,
          hint: 'Call terminal.wait again with a smaller timeoutMs.',
          details: data,
        });
      }
      if (matched) {
        const what =
          args.for === 'pattern'
            ? 'the pattern matched'
            : args.for === 'command_end' && !commandWasActive && session.integration !== 'none'
              ? 'no command was running'
              : `${args.for} reached`;
        return successResult(
          `${what} after ${formatMs(waitedMs)}; state ${state}, last exit code ${session.lastExitCode ?? '-'}, nextCursor ${data.nextCursor}.${args.for === 'pattern' ? `\nMatched text:\n${outputBlock(match ?? '')}` : ''}`,
          { data },
        );
      }
      return successResult(
        `Not yet: ${outcome === 'exited' ? 'the shell exited' : `nothing matched within ${formatMs(waitedMs)}`} (state ${state}). Read what arrived with terminal.observe {"sessionId": "${session.id}", "mode": "raw", "cursor": ${from}}; wait again, answer with terminal.write, or stop it with terminal.signal.`,
        { data },
      );
    },
  });
}
