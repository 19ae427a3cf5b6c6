import type { LoggingLevel, ServerContext } from '@modelcontextprotocol/server';
import type { ToolEvent } from '@toolsys/core-tool-registry';

/** A call's event sink and how to wait until what it sent has left. */
export interface EventForwarder {
  readonly forward: (event: ToolEvent) => void;
  /** Settles once every notification sent so far is written (send them before the result). */
  readonly flush: () => Promise<void>;
}

/**
 * Forwards tool events of one request: progress to `notifications/progress` (only when the
 * client gave a progress token, and only increasing), output to logging messages, which the SDK
 * drops below the level the client set with `logging/setLevel`.
 */
export function eventForwarder(
  ctx: ServerContext,
  progressToken: string | number | undefined,
  toolId: string,
): EventForwarder {
  let lastProgress: number | undefined;
  const pending = new Set<Promise<void>>();
  const track = (sent: Promise<void>) => {
    const settled = sent.catch(() => {});
    pending.add(settled);
    void settled.finally(() => pending.delete(settled));
  };
  const forward = (event: ToolEvent) => {
    if (event.type === 'progress') {
      if (progressToken === undefined) return;
      // Progress must increase with every notification: one that does not is not sent.
      if (lastProgress !== undefined && event.progress <= lastProgress) return;
      lastProgress = event.progress;
      track(
        ctx.mcpReq.notify({
          method: 'notifications/progress',
          params: {
            progressToken,
            progress: lastProgress,
            ...(event.total !== undefined ? { total: event.total } : {}),
            ...(event.message !== undefined ? { message: event.message } : {}),
          },
        }),
      );
      return;
    }
    const level: LoggingLevel = event.stream === 'stderr' ? 'warning' : 'info';
    track(ctx.mcpReq.log(level, event.text, toolId));
  };
  return {
    forward,
    flush: async () => {
      await Promise.allSettled([...pending]);
    },
  };
}
