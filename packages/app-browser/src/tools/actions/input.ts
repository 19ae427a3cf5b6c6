import {
  type AnyToolDefinition,
  failureResult,
  ToolErrorCode,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { type BrowserToolSettings, tabField } from '../browser-tool.js';
import {
  ACTION_METADATA,
  defineTargetTool,
  refField,
  reportDone,
  snapshotField,
} from './shared.js';

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

/** `browser_input`: types text into a field by its ref. */
export function createInputTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineTargetTool(settings, {
    id: 'browser_input',
    description:
      'Types text into a text field, text area or content-editable element by its ref: replaces its content (clear, default) or appends, and optionally presses Enter to submit. Returns what changed in the page. Use browser_date_input for date and time fields, browser_select for dropdowns.',
    inputSchema: inputSchema,
    metadata: ACTION_METADATA,
    async act(args, target, call) {
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
      return reportDone(call, target, summary, args.snapshot);
    },
  });
}
