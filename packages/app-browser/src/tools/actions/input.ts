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
  text: z.string().max(100_000).describe('Text to type.'),
  tab: tabField,
  clear: z.boolean().default(true).describe('Replace content (false: append).'),
  submit: z.boolean().default(false).describe('Press Enter afterwards.'),
  snapshot: snapshotField,
});

/** `browser_input`: types text into a field by its ref. */
export function createInputTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineTargetTool(settings, {
    id: 'browser_input',
    description: 'Types into a text field by ref, optionally pressing Enter; returns what changed.',
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
