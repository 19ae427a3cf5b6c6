// What the action tools share: their schema fields, metadata, and how a ref becomes a checked
// target.
import {
  RunPolicies,
  successResult,
  type ToolAnnotations,
  type ToolDefinition,
  ToolError,
  ToolErrorCode,
  type ToolGrantGroup,
  ToolHints,
  type ToolReturn,
} from '@toolsys/core-tool-registry';
import type { Locator } from 'playwright-core';
import { z } from 'zod';
import type { AriaNode } from '../../aria-tree.js';
import type { BrowserTab } from '../../browser-tab.js';
import { findByRef, formatNode } from '../../snapshot-render.js';
import {
  type BrowserCall,
  type BrowserToolSettings,
  defineBrowserTool,
  pickTab,
} from '../browser-tool.js';
import { type ActionReport, reportAfterAction, type SnapshotMode } from './action-report.js';

/** Schema field: the ref of the element an action targets. */
export const refField = z.string().min(1).max(40).describe('Element ref.');

/** Schema field: what an action result shows of the page afterwards. */
export const snapshotField = z
  .enum(['delta', 'full', 'none'])
  .default('delta')
  .describe('Page shown after.');

/** Hints of the action tools: they change the page, which is on the open web. */
export const ACTION_ANNOTATIONS: ToolAnnotations = { ...ToolHints.mutating, openWorldHint: true };

/**
 * The grant group of the browser's page tools: one "allow for the session" answer covers opening
 * pages and acting on them in that session (a file upload, which sends workspace files, is not
 * in it).
 */
export const BROWSER_GRANT_GROUP: ToolGrantGroup = {
  id: 'browser',
  covers: 'every browser page action in this session (open pages, click, type, select, scroll)',
};

/** Metadata of the action tools that change a page and nothing else. */
export const PAGE_ACTION_METADATA = {
  category: 'browser',
  risk: 'MEDIUM',
  tags: ['browser', 'playwright'],
  annotations: ACTION_ANNOTATIONS,
} as const;

/** Metadata of the action tools: page actions, in the browser's grant group. */
export const ACTION_METADATA = {
  ...PAGE_ACTION_METADATA,
  grantGroup: BROWSER_GRANT_GROUP,
} as const;

/** Metadata of the action tools that reach the same state when repeated. */
export const IDEMPOTENT_METADATA = {
  ...ACTION_METADATA,
  annotations: { ...ACTION_ANNOTATIONS, idempotentHint: true },
} as const;

/** The target of an action: its tab, locator and how to name it to the model. */
export interface Target {
  readonly tab: BrowserTab;
  readonly locator: Locator;
  readonly label: string;
}

/** The arguments every action on one element takes. */
export interface TargetArgs {
  readonly ref: string;
  readonly tab?: string | undefined;
  readonly snapshot: SnapshotMode;
}

/** What {@link defineTargetTool} declares: a tool definition whose work gets a checked target. */
export type TargetToolDefinition<TArgs extends TargetArgs> = Omit<
  ToolDefinition<TArgs>,
  'execute' | 'runPolicy'
> & {
  /** The tool checks itself whether the target must be enabled (default: a disabled one is refused). */
  readonly checksEnabled?: boolean;
  /** The action itself, on the target as the page holds it now. */
  act(args: TArgs, target: Target, call: BrowserCall): Promise<ToolReturn>;
};

/**
 * Declares an action on one element by its ref, the group's precondition enforced once: the ref
 * becomes a target checked against what the model was shown ({@link resolveTarget}) and a
 * disabled target is refused ({@link assertEnabled}) before `act` runs. Actions change the page:
 * they run with the mutating run policy.
 */
export function defineTargetTool<TArgs extends TargetArgs>(
  settings: BrowserToolSettings,
  definition: TargetToolDefinition<TArgs>,
): ToolDefinition<TArgs> {
  const { act, checksEnabled = false, ...rest } = definition;
  return defineBrowserTool(settings, {
    ...rest,
    runPolicy: RunPolicies.mutating,
    async run(args, call) {
      const target = await resolveTarget(call, args.tab, args.ref);
      if (!checksEnabled) await assertEnabled(target);
      return act(args, target, call);
    },
  });
}

/**
 * The target of `ref` as the page holds it now, checked against what the model was shown (the
 * tab's last snapshot, which stays the base of the delta after the action): an element whose
 * role or accessible name changed since the model saw it is refused with its new role and name.
 * Only the target is read again, not the whole page; the whole tree is read when the tab has no
 * snapshot yet or when an earlier check left Playwright resolving only its own element. The
 * label names the element as it is now.
 */
export async function resolveTarget(
  call: BrowserCall,
  tabId: string | undefined,
  ref: string,
): Promise<Target> {
  const tab = await pickTab(call.session, tabId);
  const shown = tab.lastSnapshot;
  const trimmed = ref.trim();
  // Read within the action's own time limit: a page whose script is busy ends the call there.
  const timeoutMs = call.settings.actionTimeoutMs;
  const whole =
    shown === undefined || tab.isNarrowed
      ? await tab.snapshot(call.settings.redact, timeoutMs)
      : undefined;
  if (shown === undefined) tab.lastSnapshot = whole;
  const locator = tab.locate(ref);
  let now: AriaNode | undefined;
  if (whole === undefined) {
    now = await tab.readNode(trimmed, {
      secrets: call.settings.redact ?? [],
      timeoutMs,
      ...(shown?.markHidden === undefined ? {} : { markHidden: shown.markHidden }),
    });
  } else {
    if ((await locator.count()) === 0) {
      throw new ToolError(ToolErrorCode.NOT_FOUND, `ref: element ${ref} is gone from the page`, {
        field: 'ref',
        hint: 'Take a new browser_snapshot and use a ref from it.',
      });
    }
    now = findByRef(whole.nodes, trimmed);
  }
  const seen = shown === undefined ? now : findByRef(shown.nodes, trimmed);
  const changed = describeChange(seen, now, trimmed);
  if (changed !== undefined) {
    throw new ToolError(ToolErrorCode.EXECUTION_FAILED, `ref: ${changed}; nothing was done`, {
      field: 'ref',
      retryable: false,
      hint: 'The page changed since your last snapshot: take a new browser_snapshot, check what the element is now, and act on a ref from it.',
      details: { targetChanged: true },
    });
  }
  return { tab, locator, label: describeNode(now, trimmed) };
}

/**
 * Says how the element with `ref` changed between the tree the model was shown (`seen`) and the
 * page now (`now`): a different role or accessible name, or no longer in the tree. Undefined
 * when it is the same element as shown (its state and text may differ: acting changes those).
 */
export function describeChange(
  seen: AriaNode | undefined,
  now: AriaNode | undefined,
  ref: string,
): string | undefined {
  if (seen === undefined) return undefined;
  if (now === undefined) return `element ${ref} is no longer shown on the page`;
  if (seen.role === now.role && (seen.name ?? '') === (now.name ?? '')) return undefined;
  return `element ${ref} was shown as ${describeNode(seen, ref)} but is now ${describeNode(now, ref)}`;
}

/** Names an element as the model reads it, without its text and attributes. */
export function describeNode(node: AriaNode | undefined, ref: string): string {
  if (!node) return `element ${ref}`;
  return formatNode({ ...node, text: undefined, attributes: [] } as AriaNode, 60);
}

/** Refuses a disabled target with the next step. */
export async function assertEnabled(target: Target, field = 'ref'): Promise<void> {
  const enabled = await target.locator.isEnabled({ timeout: 2_000 }).catch(() => true);
  if (!enabled) {
    throw new ToolError(ToolErrorCode.EXECUTION_FAILED, `${target.label} is disabled`, {
      field,
      retryable: false,
      hint: 'Something on the page must enable it first (fill the required fields, accept a checkbox); take a browser_snapshot to see what.',
    });
  }
}

/** Runs `work` with the session answering confirm and prompt dialogs as asked. */
export async function withDialogAnswer<T>(
  call: BrowserCall,
  answer: 'accept' | 'dismiss',
  work: () => Promise<T>,
): Promise<T> {
  const previous = call.session.dialogAnswer;
  call.session.dialogAnswer = answer;
  try {
    return await work();
  } finally {
    call.session.dialogAnswer = previous;
  }
}

/** The element's tag name and type attribute, in lower case. */
export async function tagName(locator: Locator): Promise<{ tag: string; type: string }> {
  return locator.evaluate((element) => ({
    tag: element.tagName.toLowerCase(),
    type: (element.getAttribute('type') ?? '').toLowerCase(),
  }));
}

/** The success result of an action report. */
export function done(report: ActionReport): ToolReturn {
  return successResult(report.content, {
    data: report.data,
    ...(report.artifacts === undefined ? {} : { artifacts: report.artifacts }),
  });
}

/** The success result of an action on `target`: its sentence, then the page as `mode` asks. */
export async function reportDone(
  call: BrowserCall,
  target: Target,
  summary: string,
  mode: SnapshotMode,
): Promise<ToolReturn> {
  return done(await reportAfterAction(call, target.tab, summary, mode));
}
