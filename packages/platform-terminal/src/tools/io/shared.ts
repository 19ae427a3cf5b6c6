// What the input and output tools share.
import type { ToolContext } from '@toolsys/core-tool-registry';
import { formatMs } from '../tool-support.js';

const PROGRESS_EVERY_MS = 1_000;

/** Emits a progress event about once a second while a wait runs. */
export function progressTicker(
  context: ToolContext,
  total: number,
  what: string,
): (elapsed: number) => void {
  let last = 0;
  return (elapsed) => {
    if (elapsed - last < PROGRESS_EVERY_MS) return;
    last = elapsed;
    context.emit({
      type: 'progress',
      progress: Math.min(elapsed, total),
      total,
      message: `${what} (${formatMs(elapsed)})`,
    });
  };
}
