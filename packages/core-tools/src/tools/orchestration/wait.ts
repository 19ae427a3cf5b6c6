// `wait`: pauses for a number of seconds on the injected clock.
import {
  type AnyToolDefinition,
  cancelledFailure,
  defineTool,
  sleep,
  successResult,
  type ToolClock,
  ToolHints,
  type ToolRunPolicy,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';

/** The longest `wait`, in seconds. */
export const MAX_WAIT_SECONDS = 300;

const WAIT_POLICY: ToolRunPolicy = {
  name: 'wait',
  timeoutMs: (MAX_WAIT_SECONDS + 10) * 1000,
  maxRetries: 0,
  backoffBaseMs: 0,
  backoffMaxMs: 0,
};

/** The `wait` tool, sleeping on `clock`. */
export function createWaitTool(clock: ToolClock): AnyToolDefinition {
  return defineTool({
    id: 'wait',
    description: `Pauses for some seconds.`,
    inputSchema: ToolSchema.object({
      seconds: z.number().positive().max(MAX_WAIT_SECONDS).describe('Seconds (fractions allowed).'),
      reason: z.string().max(200).optional().describe('Why (shown in progress).'),
    }),
    metadata: {
      category: 'orchestration',
      risk: 'LOW',
      annotations: ToolHints.readOnly,
    },
    runPolicy: WAIT_POLICY,
    async execute({ seconds, reason }, context) {
      context.emit({
        type: 'progress',
        progress: 0,
        total: seconds,
        message: reason ? `waiting: ${reason}` : 'waiting',
      });
      const completed = await sleep(clock, seconds * 1000, context.signal);
      if (!completed) return cancelledFailure(context.signal);
      context.emit({ type: 'progress', progress: seconds, total: seconds });
      return successResult(`Waited ${seconds} s.`, { data: { seconds } });
    },
  });
}
