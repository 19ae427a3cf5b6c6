import {
  type AnyToolDefinition,
  failureResult,
  ToolErrorCode,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { type BrowserToolSettings, tabField } from '../browser-tool.js';
import {
  defineTargetTool,
  IDEMPOTENT_METADATA,
  refField,
  reportDone,
  snapshotField,
  tagName,
} from './shared.js';

const toggleSchema = ToolSchema.object({
  ref: refField,
  checked: z.boolean().default(true).describe('Wanted state.'),
  tab: tabField,
  snapshot: snapshotField,
});

/** `browser_toggle`: sets a checkbox, radio button or switch. */
export function createToggleTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineTargetTool(settings, {
    id: 'browser_toggle',
    description: 'Sets a checkbox, radio or switch by ref; returns what changed.',
    inputSchema: toggleSchema,
    metadata: IDEMPOTENT_METADATA,
    async act(args, target, call) {
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
        return reportDone(
          call,
          target,
          `${target.label} was already ${wanted}; nothing done.`,
          'none',
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
      return reportDone(call, target, summary, args.snapshot);
    },
  });
}
