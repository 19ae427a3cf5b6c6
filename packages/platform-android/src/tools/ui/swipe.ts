import {
  type AnyToolDefinition,
  RunPolicies,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { AndroidToolSession } from '../../android-session.js';
import { serialField } from '../device-tool.js';
import {
  actAndReport,
  countTargets,
  defineScreenActionTool,
  isResolved,
  resolveTarget,
  screenSize,
  shortLabel,
  targetFields,
} from './shared.js';

/** The `ui_swipe` tool. */
export function createUiSwipeTool(session: AndroidToolSession): AnyToolDefinition {
  return defineScreenActionTool(session, {
    id: 'ui_swipe',
    description:
      'Swipes on the Android screen: scrolls a list (direction "up" shows content further down), pages, or dismisses. Within a node chosen by ref / text / resourceId / contentDesc (checked on the current screen first), or the whole screen; reports what changed, or that nothing did (e.g. the end of a list).',
    inputSchema: ToolSchema.object({
      direction: z
        .enum(['up', 'down', 'left', 'right'])
        .describe('Finger direction: "up" scrolls content up (reveals what is below).'),
      ...targetFields,
      distance: z
        .number()
        .min(0.1)
        .max(0.95)
        .default(0.6)
        .describe('Swipe length as a fraction of the node (or screen) size, 0.1-0.95.'),
      durationMs: z
        .number()
        .int()
        .min(50)
        .max(3000)
        .default(300)
        .describe('Swipe duration in ms (longer = slower, less fling).'),
      serial: serialField,
    }),
    metadata: { category: 'ui', risk: 'MEDIUM', tags: ['ui'], annotations: ToolHints.mutating },
    runPolicy: RunPolicies.mutating,
    targets: 'optional-node',
    async execute(args, context, { previous, before }) {
      let area: readonly [number, number, number, number];
      let where = 'the screen';
      let note: string | undefined;
      if (countTargets(args) === 1) {
        const resolved = resolveTarget(args, before, previous);
        if (!isResolved(resolved)) return resolved;
        area = resolved.node.bounds;
        where = shortLabel(resolved.node);
        note = resolved.note;
      } else {
        const size = screenSize(before);
        area = [0, Math.round(size.height * 0.1), size.width, Math.round(size.height * 0.9)];
      }
      const [left, top, right, bottom] = area;
      const cx = Math.round((left + right) / 2);
      const cy = Math.round((top + bottom) / 2);
      const dx = Math.round(((right - left) * args.distance) / 2);
      const dy = Math.round(((bottom - top) * args.distance) / 2);
      const [x1, y1, x2, y2] =
        args.direction === 'up'
          ? [cx, cy + dy, cx, cy - dy]
          : args.direction === 'down'
            ? [cx, cy - dy, cx, cy + dy]
            : args.direction === 'left'
              ? [cx + dx, cy, cx - dx, cy]
              : [cx - dx, cy, cx + dx, cy];
      return actAndReport(
        context,
        before,
        (backend) =>
          backend.swipe(context.device, { x: x1, y: y1 }, { x: x2, y: y2 }, args.durationMs, {
            signal: context.signal,
          }),
        `Swiped ${args.direction} on ${where} (${x1},${y1} → ${x2},${y2})`,
        note,
      );
    },
  });
}
