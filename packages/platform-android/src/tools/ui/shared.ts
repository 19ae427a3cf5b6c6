// What the UI tools share: the target fields, finding the target on the current screen,
// and reporting what an action changed.
import {
  type AnyToolDefinition,
  failureResult,
  successResult,
  type ToolDefinition,
  type ToolEnvironmentRule,
  ToolErrorCode,
  type ToolReturn,
} from '@toolsys/core-tool-registry';
import { cleanUntrustedLine } from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import type { AndroidToolSession, UiSnapshot } from '../../android-session.js';
import { SCREEN_RULES } from '../../device-telemetry.js';
import type { UiBackend } from '../../ui-backend.js';
import { describeChange, diffScreens } from '../../ui-diff.js';
import { flattenNodes, isKeyboardWindow, type UiNode } from '../../ui-hierarchy.js';
import { sameContext, targetContext } from '../../ui-target-context.js';
import { type DeviceToolContext, defineDeviceTool } from '../device-tool.js';

/** The fields that name a node on screen: a ref from ui_dump or a selector. */
export const targetFields = {
  ref: z
    .string()
    .regex(/^e[0-9]{3,6}$/, 'expected a ref from ui_dump such as e048 (without the brackets)')
    .optional()
    .describe('Ref of the node from the latest ui_dump, e.g. "e048".'),
  text: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe('Visible text of the node (exact, else a unique case-insensitive part).'),
  resourceId: z
    .string()
    .min(1)
    .max(300)
    .optional()
    .describe('resource-id of the node, full ("com.app:id/send") or short ("send").'),
  contentDesc: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe('content-desc (accessibility label) of the node.'),
};

type TargetArgs = {
  ref?: string | undefined;
  text?: string | undefined;
  resourceId?: string | undefined;
  contentDesc?: string | undefined;
};

interface Resolved {
  readonly node: UiNode;
  readonly note?: string;
  /** The text beside the node that says what acting on it means (a dialog's message), if any. */
  readonly beside?: string;
}

/** A node as one short line: ref, class and its text (cleaned). */
export function shortLabel(node: UiNode): string {
  const name = node.className.slice(node.className.lastIndexOf('.') + 1);
  const text = node.text || node.contentDesc || node.resourceId;
  return `${node.ref ? `[${node.ref}] ` : ''}${name}${text ? ` "${cleanUntrustedLine(text, 200)}"` : ''}`;
}

/** Labels of a context as the model reads them: cleaned, quoted, the list bounded. */
function quoteLabels(labels: readonly string[]): string {
  if (labels.length === 0) return 'nothing';
  const shown = labels.slice(0, 6).map((label) => `"${cleanUntrustedLine(label, 200)}"`);
  return `${shown.join(', ')}${labels.length > 6 ? `, … (${labels.length} texts)` : ''}`;
}

/** The nodes of the app windows (the keyboard left out). */
export function appNodes(snapshot: UiSnapshot): UiNode[] {
  return flattenNodes(snapshot.roots.filter((root) => !isKeyboardWindow(root)));
}

/**
 * Finds the node a tap or swipe targets on the current screen. Refused (as a result) when the ref
 * is gone since the last ui_dump, when nothing matches, or when a selector matches several nodes.
 */
export function resolveTarget(
  args: TargetArgs,
  snapshot: UiSnapshot,
  previous: UiSnapshot | undefined,
): Resolved | ToolReturn {
  const nodes = appNodes(snapshot);
  if (args.ref !== undefined) {
    const found = nodes.find((candidate) => candidate.ref === args.ref);
    const earlier = previous
      ? appNodes(previous).find((candidate) => candidate.ref === args.ref)
      : undefined;
    // A short ref can name another node on another screen: the node must be the one it named.
    const node = found && earlier && earlier.key !== found.key ? undefined : found;
    if (!node) {
      return failureResult(
        ToolErrorCode.NOT_FOUND,
        earlier
          ? `The screen changed since the last ui_dump: ${shortLabel(earlier)} is no longer on screen (foreground now ${snapshot.telemetry.foreground?.activity ?? 'unknown'}). Nothing was tapped.`
          : `No node with ref ${args.ref} is on the current screen. Nothing was tapped.`,
        { field: 'ref', hint: 'Call ui_dump to see the current screen and use a ref from it.' },
      );
    }
    const surroundings = checkSurroundings(node, snapshot, earlier, previous, 'ref');
    if ('refusal' in surroundings) return surroundings.refusal;
    const beside = surroundings.beside === undefined ? {} : { beside: surroundings.beside };
    if (earlier && earlier.bounds.join() !== node.bounds.join()) {
      return {
        node,
        note: `${shortLabel(node)} moved since the last ui_dump; acted at its current position.`,
        ...beside,
      };
    }
    return { node, ...beside };
  }
  const matchers: [string, string, (node: UiNode) => string][] = [];
  if (args.text !== undefined) matchers.push(['text', args.text, (node) => node.text]);
  if (args.resourceId !== undefined) {
    matchers.push([
      'resourceId',
      args.resourceId,
      (node) =>
        args.resourceId?.includes(':id/')
          ? node.resourceId
          : node.resourceId.slice(node.resourceId.indexOf(':id/') + 4),
    ]);
  }
  if (args.contentDesc !== undefined)
    matchers.push(['contentDesc', args.contentDesc, (node) => node.contentDesc]);
  let candidates = nodes.filter((node) =>
    matchers.every(([, wanted, read]) => read(node) === wanted),
  );
  if (candidates.length === 0 && args.text !== undefined) {
    const needle = args.text.toLowerCase();
    candidates = nodes.filter(
      (node) =>
        node.text.toLowerCase().includes(needle) &&
        matchers
          .filter(([name]) => name !== 'text')
          .every(([, wanted, read]) => read(node) === wanted),
    );
  }
  const field = matchers[0]?.[0] ?? 'ref';
  if (candidates.length === 0) {
    return failureResult(
      ToolErrorCode.NOT_FOUND,
      `Nothing on the current screen matches ${matchers.map(([name, wanted]) => `${name}=${JSON.stringify(wanted)}`).join(' and ')}. Nothing was tapped.`,
      {
        field,
        hint: 'Call ui_dump to see what is on screen (scroll with ui_swipe if the node is further down).',
      },
    );
  }
  if (candidates.length > 1) {
    return failureResult(
      ToolErrorCode.INVALID_ARGUMENT,
      `${candidates.length} nodes match; say which one: ${candidates.slice(0, 10).map(shortLabel).join(', ')}${candidates.length > 10 ? ', …' : ''}.`,
      {
        field,
        hint: 'Retry with "ref" of one candidate, or add resourceId/contentDesc to narrow the selector.',
        details: {
          candidates: candidates.slice(0, 10).map((node) => node.ref || shortLabel(node)),
        },
      },
    );
  }
  const node = candidates[0] as UiNode;
  // The node the model saw under this selector, if the last dump had it: same check as a ref.
  const earlier = previous
    ? appNodes(previous).find((candidate) => candidate.key === node.key)
    : undefined;
  const surroundings = checkSurroundings(node, snapshot, earlier, previous, field);
  if ('refusal' in surroundings) return surroundings.refusal;
  return surroundings.beside === undefined ? { node } : { node, beside: surroundings.beside };
}

/**
 * Compares the texts around a node now with those around it in the dump the model saw: the same
 * node among other words ("Save your draft?" became "Factory reset?") is another act, refused
 * with what the screen reads now. Otherwise gives the text that says what the act means.
 */
function checkSurroundings(
  node: UiNode,
  snapshot: UiSnapshot,
  earlier: UiNode | undefined,
  previous: UiSnapshot | undefined,
  field: string,
): { refusal: ToolReturn } | { beside?: string } {
  const now = targetContext(snapshot.roots, node);
  const seen = earlier && previous ? targetContext(previous.roots, earlier) : undefined;
  if (now && seen && !sameContext(now, seen)) {
    return {
      refusal: failureResult(
        ToolErrorCode.NOT_FOUND,
        `The screen around ${shortLabel(node)} changed since the last ui_dump: it now reads ${quoteLabels(now.labels)} (the ui_dump showed ${quoteLabels(seen.labels)}). Nothing was tapped.`,
        {
          field,
          hint: 'Call ui_dump to read the current screen, and decide again whether to act on it.',
        },
      ),
    };
  }
  return now?.headline === undefined ? {} : { beside: now.headline };
}

/** Whether resolveTarget found the node (else it returned the refusal). */
export function isResolved(value: Resolved | ToolReturn): value is Resolved {
  return typeof value === 'object' && 'node' in value;
}

/** How many kinds of target the arguments give (ref, selector, x/y). */
export function countTargets(
  args: TargetArgs & { x?: number | undefined; y?: number | undefined },
): number {
  const selector =
    args.text !== undefined || args.resourceId !== undefined || args.contentDesc !== undefined;
  return (
    (args.ref !== undefined ? 1 : 0) +
    (selector ? 1 : 0) +
    (args.x !== undefined || args.y !== undefined ? 1 : 0)
  );
}

/** The screen size in pixels, from the first window's bounds. */
export function screenSize(snapshot: UiSnapshot): { width: number; height: number } {
  const root = snapshot.roots[0];
  return root ? { width: root.bounds[2], height: root.bounds[3] } : { width: 0, height: 0 };
}

/** Runs an action on the UI backend, lets the screen settle and reports what changed. */
export async function actAndReport(
  context: DeviceToolContext,
  before: UiSnapshot,
  act: (backend: UiBackend) => Promise<string | undefined>,
  what: string,
  note: string | undefined,
): Promise<ToolReturn> {
  const { value: error, backend } = await context.session.withUiBackend(context.device.serial, act);
  if (error !== undefined)
    return failureResult(ToolErrorCode.EXECUTION_FAILED, `${what} failed: ${error}`);
  await context.session.settle(context.signal);
  const after = await context.session.snapshot(context.device, context.owner, {
    signal: context.signal,
  });
  const change = diffScreens(before, after);
  const prefix = note ? `${note} ` : '';
  const content = change.changed
    ? `${prefix}${what} (via ${backend}). ${describeChange(change)}`
    : `${prefix}${what} (via ${backend}), but nothing on screen changed (no new screen, no node appeared or changed). The target may not react to taps, or the app is busy; check with ui_dump or try another target.`;
  return successResult(content, { data: { changed: change.changed, change, backend } });
}

/** The environment rules of every tool that reads or acts on the screen. */
export const screenRules: readonly ToolEnvironmentRule[] = SCREEN_RULES;

/** The screens an action on a target starts from. */
export interface ActionScreens {
  /** The screen the model saw last, which refs from ui_dump point into (none before a dump). */
  readonly previous: UiSnapshot | undefined;
  /** The screen as it is now, read before acting. */
  readonly before: UiSnapshot;
}

/** Which targets an action takes, and what the model reads when a call gives others. */
const TARGET_RULES = {
  'node-or-point': {
    allows: (count: number) => count === 1,
    message:
      'Give exactly one target: "ref", a selector (text / resourceId / contentDesc), or "x" and "y".',
  },
  'optional-node': {
    allows: (count: number) => count <= 1,
    message: 'Give at most one target: "ref" or a selector (text / resourceId / contentDesc).',
  },
} as const;

/**
 * Declares a UI tool that acts on a target on the screen: the screen rules apply, the number of
 * targets is checked, and the handler starts from the current screen and the one the model saw
 * last, so that a stale ref can be refused.
 */
export function defineScreenActionTool<
  TArgs extends TargetArgs & {
    serial?: string | undefined;
    x?: number | undefined;
    y?: number | undefined;
  },
>(
  session: AndroidToolSession,
  definition: Omit<ToolDefinition<TArgs>, 'execute' | 'environmentRules'> & {
    /** `node-or-point`: exactly one of ref, selector or x/y; `optional-node`: a node or the whole screen. */
    targets: keyof typeof TARGET_RULES;
    execute(args: TArgs, context: DeviceToolContext, screens: ActionScreens): Promise<ToolReturn>;
  },
): AnyToolDefinition {
  const { targets, execute, ...rest } = definition;
  const rule = TARGET_RULES[targets];
  return defineDeviceTool<TArgs>(session, {
    ...rest,
    environmentRules: screenRules,
    async execute(args, context) {
      if (!rule.allows(countTargets(args))) {
        return failureResult(ToolErrorCode.INVALID_ARGUMENT, rule.message, { field: 'ref' });
      }
      const previous = context.session.lastSnapshot(context.device.serial, context.owner);
      const before = await context.session.snapshot(context.device, context.owner, {
        signal: context.signal,
      });
      return execute(args, context, { previous, before });
    },
  });
}
