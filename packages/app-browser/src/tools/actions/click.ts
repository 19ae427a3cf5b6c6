import { type AnyToolDefinition, ToolSchema } from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { type BrowserToolSettings, closesSoon, isClosedError, tabField } from '../browser-tool.js';
import {
  ACTION_METADATA,
  defineTargetTool,
  refField,
  reportDone,
  snapshotField,
  withDialogAnswer,
} from './shared.js';

const clickSchema = ToolSchema.object({
  ref: refField,
  tab: tabField,
  button: z.enum(['left', 'right', 'middle']).default('left').describe('Mouse button.'),
  double: z.boolean().default(false).describe('Double-click.'),
  modifiers: z
    .array(z.enum(['Alt', 'Control', 'Meta', 'Shift']))
    .max(4)
    .default([])
    .describe('Keys held.'),
  dialog: z.enum(['accept', 'dismiss']).default('dismiss').describe('Answer to a dialog it opens.'),
  snapshot: snapshotField,
});

/** `browser_click`: clicks an element by its ref. */
export function createClickTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineTargetTool(settings, {
    id: 'browser_click',
    description: 'Clicks an element by ref; returns what changed in the page.',
    inputSchema: clickSchema,
    metadata: ACTION_METADATA,
    async act(args, target, call) {
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
      return reportDone(call, target, `${verb} ${target.label}.`, args.snapshot);
    },
  });
}
