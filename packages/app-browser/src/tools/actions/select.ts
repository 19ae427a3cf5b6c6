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

const selectSchema = ToolSchema.object({
  ref: refField,
  values: z.array(z.string().max(1_000)).min(1).max(100).describe('Labels or values.'),
  tab: tabField,
  snapshot: snapshotField,
});

/** `browser_select`: selects options of a dropdown. */
export function createSelectTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineTargetTool(settings, {
    id: 'browser_select',
    description: 'Selects options of a <select> by label or value.',
    inputSchema: selectSchema,
    metadata: IDEMPOTENT_METADATA,
    async act(args, target, call) {
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
      const chosenLabels = labels.map((label) => JSON.stringify(label)).join(', ');
      return reportDone(
        call,
        target,
        `Selected ${chosenLabels} in ${target.label}.`,
        args.snapshot,
      );
    },
  });
}
