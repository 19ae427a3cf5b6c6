import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  ToolErrorCode,
  ToolHints,
  type ToolReturn,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { cleanUntrustedLine } from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import type { AndroidToolSession, UiSnapshot } from '../../android-session.js';
import { centerOf, isKeyboardWindow, type UiNode } from '../../ui-hierarchy.js';
import { serialField } from '../device-tool.js';
import {
  actAndReport,
  defineScreenActionTool,
  isResolved,
  resolveTarget,
  screenSize,
  shortLabel,
  targetFields,
} from './shared.js';

/**
 * Refuses a target whose centre lies under the soft keyboard: a tap there would hit a key, not the
 * node (uiautomator still lists nodes the keyboard covers).
 */
function coveredByKeyboard(
  node: UiNode,
  snapshot: UiSnapshot,
  field: string,
): ToolReturn | undefined {
  const keyboard = snapshot.roots.find(isKeyboardWindow);
  if (!keyboard) return undefined;
  const { x, y } = centerOf(node);
  const [left, top, right, bottom] = keyboard.bounds;
  if (x < left || x >= right || y < top || y >= bottom) return undefined;
  return failureResult(
    ToolErrorCode.UNSUPPORTED,
    `${shortLabel(node)} is behind the on-screen keyboard; a tap there would hit a key. Nothing was tapped.`,
    {
      field,
      hint: 'Scroll it above the keyboard (ui_swipe down on its list), or tap outside the text field to close the keyboard, then ui_dump again.',
    },
  );
}

/** The `ui_tap` tool. */
export function createUiTapTool(session: AndroidToolSession): AnyToolDefinition {
  return defineScreenActionTool(session, {
    id: 'ui_tap',
    description:
      'Taps a node on the Android screen, chosen by ref (from ui_dump), by text / resourceId / contentDesc, or by x,y pixels. Before tapping it checks the node is on the current screen (a ref from a screen that has since changed is refused; an ambiguous selector lists the candidates); after tapping it reports what changed (new activity, keyboard, nodes appeared or gone), or that nothing changed.',
    inputSchema: ToolSchema.object({
      ...targetFields,
      x: z.number().int().min(0).optional().describe('X in pixels (with y), when no node fits.'),
      y: z.number().int().min(0).optional().describe('Y in pixels (with x).'),
      longPress: z
        .boolean()
        .default(false)
        .describe('Hold for about 600 ms (a long press) instead of a tap.'),
      serial: serialField,
    }),
    metadata: { category: 'ui', risk: 'MEDIUM', tags: ['ui'], annotations: ToolHints.mutating },
    runPolicy: RunPolicies.mutating,
    targets: 'node-or-point',
    async execute(args, context, { previous, before }) {
      let point: { x: number; y: number };
      let what: string;
      let note: string | undefined;
      let node: UiNode | undefined;
      if (args.x !== undefined || args.y !== undefined) {
        if (args.x === undefined || args.y === undefined) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `${args.x === undefined ? 'x' : 'y'}: required with ${args.x === undefined ? 'y' : 'x'}`,
            { field: args.x === undefined ? 'x' : 'y' },
          );
        }
        const size = screenSize(before);
        if (args.x >= size.width || args.y >= size.height) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `(${args.x}, ${args.y}) is outside the ${size.width}x${size.height} screen.`,
            { field: args.x >= size.width ? 'x' : 'y' },
          );
        }
        point = { x: args.x, y: args.y };
        what = `Tapped (${args.x}, ${args.y})`;
      } else {
        const resolved = resolveTarget(args, before, previous);
        if (!isResolved(resolved)) return resolved;
        const covered = coveredByKeyboard(
          resolved.node,
          before,
          args.ref !== undefined ? 'ref' : 'text',
        );
        if (covered) return covered;
        point = centerOf(resolved.node);
        node = resolved.node;
        // The result names what was acted on, with the text that gave the tap its meaning.
        what = `Tapped ${shortLabel(resolved.node)}${resolved.beside === undefined ? '' : ` in "${cleanUntrustedLine(resolved.beside, 200)}"`} at (${point.x}, ${point.y})`;
        note = resolved.note;
      }
      return actAndReport(
        context,
        before,
        (backend) =>
          backend.tap(
            context.device,
            {
              ...(node ? { node, roots: before.roots } : {}),
              point,
              longPress: args.longPress,
            },
            { signal: context.signal },
          ),
        args.longPress ? what.replace('Tapped', 'Long-pressed') : what,
        note,
      );
    },
  });
}
