import { stat } from 'node:fs/promises';
import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  type ToolAnnotations,
  ToolError,
  ToolErrorCode,
  ToolHints,
  type ToolReturn,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { resolveWorkspacePath } from '@toolsys/platform';
import type { Locator } from 'playwright-core';
import { z } from 'zod';
import type { AriaNode } from '../aria-tree.js';
import type { BrowserTab } from '../browser-tab.js';
import { findByRef, formatNode } from '../snapshot-render.js';
import {
  type ActionReport,
  type BrowserCall,
  type BrowserToolSettings,
  closesSoon,
  defineBrowserTool,
  isClosedError,
  reportAfterAction,
} from './browser-tool.js';
import { ensureSnapshot, pickTab, tabField } from './page-view.js';

const refField = z
  .string()
  .min(1)
  .max(40)
  .describe('Ref of the target element, such as "e12", from browser_snapshot or an action result.');
const snapshotField = z
  .enum(['delta', 'full', 'none'])
  .default('delta')
  .describe(
    'What the result shows of the page afterwards: "delta" (only what changed), "full" (a budgeted snapshot; when cut, the whole page is also saved to a file) or "none".',
  );

const ACTION_ANNOTATIONS: ToolAnnotations = { ...ToolHints.mutating, openWorldHint: true };

const ACTION_METADATA = {
  category: 'browser',
  risk: 'MEDIUM',
  tags: ['browser', 'playwright'],
  annotations: ACTION_ANNOTATIONS,
} as const;

const IDEMPOTENT_METADATA = {
  ...ACTION_METADATA,
  annotations: { ...ACTION_ANNOTATIONS, idempotentHint: true },
} as const;

/** The target of an action: its tab, locator and how to name it to the model. */
interface Target {
  readonly tab: BrowserTab;
  readonly locator: Locator;
  readonly label: string;
}

/**
 * The target of `ref` as the page holds it now, checked against what the model was shown: the
 * tab's tree is read again (the tab's last snapshot stays what the model saw, the base of the
 * delta after the action), and an element whose role or accessible name changed since the model
 * saw it is refused with its new role and name. The label names the element as it is now.
 */
async function resolveTarget(
  call: BrowserCall,
  tabId: string | undefined,
  ref: string,
): Promise<Target> {
  const tab = await pickTab(call.session, tabId);
  const shown = tab.lastSnapshot;
  // Read within the action's own time limit: a page whose script is busy ends the call there.
  const current = await tab.snapshot(call.settings.redact, call.settings.actionTimeoutMs);
  if (shown === undefined) tab.lastSnapshot = current;
  const locator = tab.locate(ref);
  if ((await locator.count()) === 0) {
    throw new ToolError(ToolErrorCode.NOT_FOUND, `ref: element ${ref} is gone from the page`, {
      field: 'ref',
      hint: 'Take a new browser_snapshot and use a ref from it.',
    });
  }
  const trimmed = ref.trim();
  const now = findByRef(current.nodes, trimmed);
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

function describeNode(node: AriaNode | undefined, ref: string): string {
  if (!node) return `element ${ref}`;
  return formatNode({ ...node, text: undefined, attributes: [] } as AriaNode, 60);
}

async function assertEnabled(target: Target, field = 'ref'): Promise<void> {
  const enabled = await target.locator.isEnabled({ timeout: 2_000 }).catch(() => true);
  if (!enabled) {
    throw new ToolError(ToolErrorCode.EXECUTION_FAILED, `${target.label} is disabled`, {
      field,
      retryable: false,
      hint: 'Something on the page must enable it first (fill the required fields, accept a checkbox); take a browser_snapshot to see what.',
    });
  }
}

async function withDialogAnswer<T>(
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

async function tagName(locator: Locator): Promise<{ tag: string; type: string }> {
  return locator.evaluate((element) => ({
    tag: element.tagName.toLowerCase(),
    type: (element.getAttribute('type') ?? '').toLowerCase(),
  }));
}

function done(report: ActionReport): ToolReturn {
  return successResult(report.content, {
    data: report.data,
    ...(report.artifacts === undefined ? {} : { artifacts: report.artifacts }),
  });
}

const clickSchema = ToolSchema.object({
  ref: refField,
  tab: tabField,
  button: z.enum(['left', 'right', 'middle']).default('left').describe('Mouse button.'),
  double: z.boolean().default(false).describe('Double-click instead of a single click.'),
  modifiers: z
    .array(z.enum(['Alt', 'Control', 'Meta', 'Shift']))
    .max(4)
    .default([])
    .describe('Keys held during the click, e.g. ["Control"] to open a link in a new tab.'),
  dialog: z
    .enum(['accept', 'dismiss'])
    .default('dismiss')
    .describe('How a confirm or prompt dialog the click opens is answered (alerts are accepted).'),
  snapshot: snapshotField,
});

const inputSchema = ToolSchema.object({
  ref: refField,
  text: z.string().max(100_000).describe('Text to type into the field.'),
  tab: tabField,
  clear: z
    .boolean()
    .default(true)
    .describe('Replace what the field holds (true) or add the text at its end (false).'),
  submit: z.boolean().default(false).describe('Press Enter afterwards (submits most forms).'),
  snapshot: snapshotField,
});

const scrollSchema = ToolSchema.object({
  ref: z
    .string()
    .max(40)
    .optional()
    .describe('Scroll inside this element (or bring it into view); default: the page.'),
  tab: tabField,
  direction: z.enum(['down', 'up', 'right', 'left']).default('down').describe('Where to scroll.'),
  amount: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .optional()
    .describe('Pixels to scroll. Default: 90% of the visible height or width.'),
  snapshot: snapshotField,
});

const selectSchema = ToolSchema.object({
  ref: refField,
  values: z
    .array(z.string().max(1_000))
    .min(1)
    .max(100)
    .describe('Options to select, by visible label or value; several for a multiple select.'),
  tab: tabField,
  snapshot: snapshotField,
});

const toggleSchema = ToolSchema.object({
  ref: refField,
  checked: z
    .boolean()
    .default(true)
    .describe('The wanted state: true checked / on, false unchecked / off.'),
  tab: tabField,
  snapshot: snapshotField,
});

const dateSchema = ToolSchema.object({
  ref: refField,
  value: z
    .string()
    .min(1)
    .max(40)
    .describe(
      'ISO 8601 value: "2026-03-14" (date), "09:30" (time), "2026-03-14T09:30" (datetime-local), "2026-03" (month), "2026-W11" (week).',
    ),
  tab: tabField,
  snapshot: snapshotField,
});

const uploadSchema = ToolSchema.object({
  ref: refField,
  paths: z
    .array(z.string().min(1).max(4_096))
    .min(1)
    .max(20)
    .describe('Files to upload, relative to the workspace root (files outside it are refused).'),
  tab: tabField,
  snapshot: snapshotField,
});

const DATE_FORMATS: Record<string, { pattern: RegExp; example: string }> = {
  date: { pattern: /^\d{4}-\d{2}-\d{2}$/, example: '2026-03-14' },
  time: { pattern: /^\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/, example: '09:30' },
  'datetime-local': {
    pattern: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/,
    example: '2026-03-14T09:30',
  },
  month: { pattern: /^\d{4}-\d{2}$/, example: '2026-03' },
  week: { pattern: /^\d{4}-W\d{2}$/, example: '2026-W11' },
};

/**
 * Converts an ISO value to the format of a date-like input: a full date-time given for a date
 * input keeps its date part, and so on. Returns undefined when the value does not fit the type.
 */
export function toInputValue(type: string, value: string): string | undefined {
  const trimmed = value.trim();
  const format = DATE_FORMATS[type];
  if (!format) return undefined;
  const candidates = [trimmed];
  const dateTime = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)/.exec(trimmed);
  if (dateTime) {
    candidates.push(`${dateTime[1]}T${dateTime[2]}`, dateTime[1] as string, dateTime[2] as string);
  }
  for (const candidate of candidates) {
    if (format.pattern.test(candidate) && isRealDate(type, candidate)) return candidate;
  }
  return undefined;
}

function isRealDate(type: string, value: string): boolean {
  if (type === 'date' || type === 'datetime-local') {
    const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [
      number,
      number,
      number,
    ];
    const date = new Date(Date.UTC(year, month - 1, day));
    if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return false;
  }
  if (type === 'time' || type === 'datetime-local') {
    const time = type === 'time' ? value : value.slice(11);
    const [hours, minutes] = time.split(':').map(Number) as [number, number];
    if (hours > 23 || minutes > 59) return false;
  }
  if (type === 'month') {
    const month = Number(value.slice(5, 7));
    if (month < 1 || month > 12) return false;
  }
  if (type === 'week') {
    const week = Number(value.slice(6));
    if (week < 1 || week > 53) return false;
  }
  return true;
}

/** The action tools: click, input, scroll, select, toggle, date input and file upload. */
export function createActionTools(settings: BrowserToolSettings): AnyToolDefinition[] {
  return [
    defineBrowserTool(settings, {
      id: 'browser_click',
      description:
        'Clicks an element by its ref (left, right or middle button; double-click; with modifier keys), after waiting (bounded) until it is visible, stable and enabled. Returns what changed in the page: nodes added, removed or changed, a new URL or title, dialogs, new tabs and downloads. Use browser_toggle for checkboxes, browser_select for dropdowns, browser_input for text.',
      inputSchema: clickSchema,
      metadata: ACTION_METADATA,
      runPolicy: RunPolicies.mutating,
      async run(args, call) {
        const target = await resolveTarget(call, args.tab, args.ref);
        await assertEnabled(target);
        try {
          await withDialogAnswer(call, args.dialog, () =>
            target.locator.click({
              button: args.button,
              clickCount: args.double ? 2 : 1,
              modifiers: args.modifiers,
              timeout: call.settings.actionTimeoutMs,
            }),
          );
        } catch (error) {
          // A click whose handler closes the tab can fail in Playwright's wait after the click:
          // the click happened, and the report says the tab closed itself.
          if (!(isClosedError(error) && (await closesSoon(target.tab)))) throw error;
        }
        const verb = args.double
          ? 'Double-clicked'
          : args.button === 'left'
            ? 'Clicked'
            : `${args.button[0]?.toUpperCase()}${args.button.slice(1)}-clicked`;
        return done(
          await reportAfterAction(call, target.tab, `${verb} ${target.label}.`, args.snapshot),
        );
      },
    }),
    defineBrowserTool(settings, {
      id: 'browser_input',
      description:
        'Types text into a text field, text area or content-editable element by its ref: replaces its content (clear, default) or appends, and optionally presses Enter to submit. Returns what changed in the page. Use browser_date_input for date and time fields, browser_select for dropdowns.',
      inputSchema: inputSchema,
      metadata: ACTION_METADATA,
      runPolicy: RunPolicies.mutating,
      async run(args, call) {
        const target = await resolveTarget(call, args.tab, args.ref);
        await assertEnabled(target);
        const editable = await target.locator.isEditable({ timeout: 2_000 }).catch(() => false);
        if (!editable) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `ref: ${target.label} does not accept text (not an editable field, or read-only)`,
            {
              field: 'ref',
              hint: 'Pick a textbox, searchbox or text area ref from browser_snapshot.',
            },
          );
        }
        const timeout = call.settings.actionTimeoutMs;
        if (args.clear) await target.locator.fill(args.text, { timeout });
        else {
          await target.locator.press('End', { timeout });
          await target.locator.pressSequentially(args.text, { timeout });
        }
        if (args.submit) await target.locator.press('Enter', { timeout });
        const summary = `Typed ${args.text.length} characters into ${target.label}${args.submit ? ' and pressed Enter' : ''}.`;
        return done(await reportAfterAction(call, target.tab, summary, args.snapshot));
      },
    }),
    defineBrowserTool(settings, {
      id: 'browser_scroll',
      description:
        'Scrolls the page, or an element by its ref, up, down, left or right by an amount in pixels (default: 90% of the view), and says whether anything moved and where it ended (at the top, bottom …). Refs reach elements anywhere on the page without scrolling; scroll to load more content or to see a region in a screenshot.',
      inputSchema: scrollSchema,
      metadata: IDEMPOTENT_METADATA,
      runPolicy: RunPolicies.mutating,
      async run(args, call) {
        const tab = await pickTab(call.session, args.tab);
        await ensureSnapshot(tab, call.settings);
        const vertical = args.direction === 'down' || args.direction === 'up';
        const sign = args.direction === 'down' || args.direction === 'right' ? 1 : -1;
        const scrollScript = ({
          element,
          vertical: isVertical,
          sign: direction,
          amount,
        }: {
          element: Element | null;
          vertical: boolean;
          sign: number;
          amount: number | null;
        }) => {
          const box = element ?? document.scrollingElement ?? document.documentElement;
          const view = isVertical
            ? box.clientHeight || window.innerHeight
            : box.clientWidth || window.innerWidth;
          const step = (amount ?? Math.round(view * 0.9)) * direction;
          const before = isVertical ? box.scrollTop : box.scrollLeft;
          if (isVertical) box.scrollTop = before + step;
          else box.scrollLeft = before + step;
          const after = isVertical ? box.scrollTop : box.scrollLeft;
          const max = isVertical
            ? box.scrollHeight - box.clientHeight
            : box.scrollWidth - box.clientWidth;
          return { before, after, max: Math.max(0, max) };
        };
        let label = 'the page';
        let moved: { before: number; after: number; max: number };
        if (args.ref !== undefined) {
          const target = await resolveTarget(call, args.tab, args.ref);
          label = target.label;
          const element = await target.locator.elementHandle({
            timeout: call.settings.actionTimeoutMs,
          });
          moved = await tab.page.evaluate(scrollScript, {
            element,
            vertical,
            sign,
            amount: args.amount ?? null,
          });
          await element?.dispose();
          if (moved.before === moved.after) {
            await target.locator.scrollIntoViewIfNeeded({ timeout: call.settings.actionTimeoutMs });
          }
        } else {
          moved = await tab.page.evaluate(scrollScript, {
            element: null,
            vertical,
            sign,
            amount: args.amount ?? null,
          });
        }
        const axis = vertical ? 'y' : 'x';
        const edge =
          moved.after <= 0
            ? vertical
              ? ' (at the top)'
              : ' (at the left edge)'
            : moved.after >= moved.max - 1
              ? vertical
                ? ' (at the bottom)'
                : ' (at the right edge)'
              : '';
        const summary =
          moved.before === moved.after
            ? `Nothing moved: ${label} cannot scroll ${args.direction} any further${edge}.`
            : `Scrolled ${label} ${args.direction} by ${Math.abs(moved.after - moved.before)} px; ${axis} is now ${Math.round(moved.after)} of ${Math.round(moved.max)}${edge}.`;
        return done(await reportAfterAction(call, tab, summary, args.snapshot));
      },
    }),
    defineBrowserTool(settings, {
      id: 'browser_select',
      description:
        'Selects options of a dropdown (<select>) by visible label or value; several values for a multiple select. Returns the options now selected and what changed in the page. For a custom dropdown that is not a <select>, click it with browser_click and then click the option.',
      inputSchema: selectSchema,
      metadata: IDEMPOTENT_METADATA,
      runPolicy: RunPolicies.mutating,
      async run(args, call) {
        const target = await resolveTarget(call, args.tab, args.ref);
        await assertEnabled(target);
        const { tag } = await tagName(target.locator);
        if (tag !== 'select') {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `ref: ${target.label} is not a dropdown (<select>)`,
            {
              field: 'ref',
              hint: 'For a custom dropdown, browser_click it, then browser_click the option.',
            },
          );
        }
        const available = await target.locator.evaluate((element) =>
          [...(element as HTMLSelectElement).options].map((option) => ({
            label: option.label,
            value: option.value,
          })),
        );
        const chosen: string[] = [];
        for (const [index, wanted] of args.values.entries()) {
          const match =
            available.find((option) => option.label === wanted) ??
            available.find((option) => option.value === wanted) ??
            available.find(
              (option) => option.label.trim().toLowerCase() === wanted.trim().toLowerCase(),
            );
          if (!match) {
            const shown = available.slice(0, 30).map((option) => JSON.stringify(option.label));
            return failureResult(
              ToolErrorCode.INVALID_ARGUMENT,
              `values.${index}: ${target.label} has no option ${JSON.stringify(wanted)}`,
              {
                field: `values.${index}`,
                hint: `Pick one of: ${shown.join(', ')}${available.length > 30 ? ` … (${available.length} options)` : ''}.`,
              },
            );
          }
          chosen.push(match.value);
        }
        const selected = await target.locator.selectOption(chosen, {
          timeout: call.settings.actionTimeoutMs,
        });
        const labels = selected.map(
          (value) => available.find((option) => option.value === value)?.label ?? value,
        );
        return done(
          await reportAfterAction(
            call,
            target.tab,
            `Selected ${labels.map((label) => JSON.stringify(label)).join(', ')} in ${target.label}.`,
            args.snapshot,
          ),
        );
      },
    }),
    defineBrowserTool(settings, {
      id: 'browser_toggle',
      description:
        'Sets a checkbox, radio button or switch to a wanted state (checked true or false) by its ref; does nothing when it is already in that state, and says so. A radio button cannot be unchecked: check another one of its group. Returns what changed in the page.',
      inputSchema: toggleSchema,
      metadata: IDEMPOTENT_METADATA,
      runPolicy: RunPolicies.mutating,
      async run(args, call) {
        const target = await resolveTarget(call, args.tab, args.ref);
        await assertEnabled(target);
        let current: boolean;
        try {
          current = await target.locator.isChecked({ timeout: 2_000 });
        } catch {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `ref: ${target.label} is not a checkbox, radio button or switch`,
            { field: 'ref', hint: 'Use browser_click for other elements.' },
          );
        }
        const wanted = args.checked ? 'checked' : 'unchecked';
        if (current === args.checked) {
          return done(
            await reportAfterAction(
              call,
              target.tab,
              `${target.label} was already ${wanted}; nothing done.`,
              'none',
            ),
          );
        }
        const { type } = await tagName(target.locator);
        if (!args.checked && type === 'radio') {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `checked: ${target.label} is a radio button and cannot be unchecked directly`,
            { field: 'checked', hint: 'Check another radio button of the same group instead.' },
          );
        }
        await target.locator.setChecked(args.checked, { timeout: call.settings.actionTimeoutMs });
        const now = await target.locator.isChecked({ timeout: 2_000 }).catch(() => args.checked);
        const summary =
          now === args.checked
            ? `${target.label} is now ${wanted}.`
            : `Clicked ${target.label}, but the page kept it ${now ? 'checked' : 'unchecked'}.`;
        return done(await reportAfterAction(call, target.tab, summary, args.snapshot));
      },
    }),
    defineBrowserTool(settings, {
      id: 'browser_date_input',
      description:
        'Sets a date, time, datetime-local, month or week field by its ref from an ISO 8601 value ("2026-03-14", "09:30", "2026-03-14T09:30"); a full date-time given to a date field keeps its date part. Says when the page refused the value (min, max). For a text field that opens a scripted picker, pass the value as the field expects it; if the widget ignores typing, browser_click through the picker instead.',
      inputSchema: dateSchema,
      metadata: IDEMPOTENT_METADATA,
      runPolicy: RunPolicies.mutating,
      async run(args, call) {
        const target = await resolveTarget(call, args.tab, args.ref);
        await assertEnabled(target);
        const { tag, type } = await tagName(target.locator);
        const timeout = call.settings.actionTimeoutMs;
        if (tag === 'input' && type in DATE_FORMATS) {
          const value = toInputValue(type, args.value);
          if (value === undefined) {
            return failureResult(
              ToolErrorCode.INVALID_ARGUMENT,
              `value: ${JSON.stringify(args.value)} is not a valid ${type} value`,
              {
                field: 'value',
                hint: `Pass an ISO value such as "${DATE_FORMATS[type]?.example}".`,
              },
            );
          }
          await target.locator.fill(value, { timeout });
          const now = await target.locator.inputValue({ timeout });
          const summary =
            now === value
              ? `Set ${target.label} (${type}) to ${value}.`
              : `The page did not keep ${value} in ${target.label} (it holds ${JSON.stringify(now)}); the value may be outside its min/max or step.`;
          return done(await reportAfterAction(call, target.tab, summary, args.snapshot));
        }
        const editable = await target.locator.isEditable({ timeout: 2_000 }).catch(() => false);
        if (!editable) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `ref: ${target.label} is not a date, time or text field`,
            {
              field: 'ref',
              hint: 'Pick the input field of the date, or browser_click through the picker.',
            },
          );
        }
        await target.locator.fill(args.value.trim(), { timeout });
        await target.locator.dispatchEvent('change').catch(() => undefined);
        const now = await target.locator.inputValue({ timeout }).catch(() => '');
        return done(
          await reportAfterAction(
            call,
            target.tab,
            `Typed ${JSON.stringify(args.value.trim())} into the text field ${target.label} (it now holds ${JSON.stringify(now)}).`,
            args.snapshot,
          ),
        );
      },
    }),
    defineBrowserTool(settings, {
      id: 'browser_file_upload',
      description:
        'Uploads files from the workspace through a file input (or a button that opens a file chooser) by its ref. Paths are relative to the workspace root; anything outside it is refused. Returns what changed in the page.',
      inputSchema: uploadSchema,
      metadata: {
        ...ACTION_METADATA,
        annotations: { ...ACTION_ANNOTATIONS, sensitiveAction: true },
      },
      runPolicy: RunPolicies.mutating,
      async run(args, call) {
        const files: string[] = [];
        for (const [index, path] of args.paths.entries()) {
          const field = `paths.${index}`;
          const resolved = await resolveWorkspacePath(call.settings.workspaceRoot, path, { field });
          const info = resolved.exists ? await stat(resolved.absolute) : undefined;
          if (!info?.isFile()) {
            return failureResult(
              ToolErrorCode.NOT_FOUND,
              `${field}: "${path}" is not a file in the workspace`,
              {
                field,
                hint: 'Check the path with list_files; paths are relative to the workspace root.',
              },
            );
          }
          files.push(resolved.absolute);
        }
        const target = await resolveTarget(call, args.tab, args.ref);
        const { tag, type } = await tagName(target.locator);
        const timeout = call.settings.actionTimeoutMs;
        if (tag === 'input' && type === 'file') {
          await target.locator.setInputFiles(files, { timeout });
        } else {
          await assertEnabled(target);
          const chooser = target.tab.page.waitForEvent('filechooser', { timeout });
          await target.locator.click({ timeout });
          let fileChooser: Awaited<typeof chooser>;
          try {
            fileChooser = await chooser;
          } catch {
            return failureResult(
              ToolErrorCode.INVALID_ARGUMENT,
              `ref: clicking ${target.label} opened no file chooser`,
              {
                field: 'ref',
                hint: 'Pass the ref of the file input or of the button that opens the file dialog.',
              },
            );
          }
          await fileChooser.setFiles(files, { timeout });
        }
        const names = args.paths.map((path) => JSON.stringify(path)).join(', ');
        return done(
          await reportAfterAction(
            call,
            target.tab,
            `Attached ${names} to ${target.label}.`,
            args.snapshot,
          ),
        );
      },
    }),
  ];
}
