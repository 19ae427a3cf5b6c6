import { type AnyToolDefinition, RunPolicies, ToolSchema } from '@toolsys/core-tool-registry';
import { z } from 'zod';
import {
  type BrowserToolSettings,
  defineBrowserTool,
  ensureSnapshot,
  pickTab,
  tabField,
} from '../browser-tool.js';
import { reportAfterAction } from './action-report.js';
import { done, IDEMPOTENT_METADATA, resolveTarget, snapshotField } from './shared.js';

const scrollSchema = ToolSchema.object({
  ref: z.string().max(40).optional().describe('Element to scroll; default the page.'),
  tab: tabField,
  direction: z.enum(['down', 'up', 'right', 'left']).default('down').describe('Direction.'),
  amount: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .optional()
    .describe('Pixels; default 90% of the view.'),
  snapshot: snapshotField,
});

/** `browser_scroll`: scrolls the page or an element. */
export function createScrollTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineBrowserTool(settings, {
    id: 'browser_scroll',
    description: 'Scrolls the page or an element; says where it ended.',
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
  });
}
