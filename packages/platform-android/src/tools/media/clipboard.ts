import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import {
  cleanUntrustedText,
  markUntrusted,
  untrustedMarkers,
} from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import type { AndroidDevice } from '../../android-device.js';
import type { AndroidToolSession } from '../../android-session.js';
import { quoteShell } from '../../shell-quote.js';
import { defineDeviceTool, serialField } from '../device-tool.js';

/** The package of the Clipper app (`ca.zgrs.clipper`) the clipboard path uses. */
export const CLIPPER_PACKAGE = 'ca.zgrs.clipper';

/** Reads the clipboard through Clipper's `clipper.get` broadcast; undefined when Clipper is missing. */
export async function readClipboard(
  device: AndroidDevice,
  signal: AbortSignal,
): Promise<string | undefined> {
  const output = await device.shell('am broadcast -a clipper.get', { signal });
  const match = /Broadcast completed: result=-1, data="([\s\S]*)"\s*$/.exec(output);
  return match ? (match[1] as string) : undefined;
}

/** Sets the clipboard through Clipper's `clipper.set` broadcast; false when Clipper is missing. */
export async function writeClipboard(
  device: AndroidDevice,
  text: string,
  signal: AbortSignal,
): Promise<boolean> {
  const output = await device.shell(`am broadcast -a clipper.set -e text ${quoteShell(text)}`, {
    signal,
  });
  return /Broadcast completed: result=-1/.test(output);
}

function clipperMissing() {
  return failureResult(
    ToolErrorCode.UNSUPPORTED,
    'The clipboard cannot be reached over adb on this device: the Clipper helper app is not installed.',
    {
      hint: `Stock Android gives the shell no clipboard access. Install Clipper (${CLIPPER_PACKAGE}) with app_install, then retry; to type text use input_text instead.`,
    },
  );
}

/**
 * The risk of one `clipboard` call: replacing the clipboard is MEDIUM (what is pasted next reaches
 * any app, as a tap or typed text does), reading it LOW. The kernel's risk gate evaluates it, so
 * the deployment's policy (allow, ask, deny) and the user's grants apply to a write.
 */
export function clipboardRisk(rawArgs: unknown): 'LOW' | 'MEDIUM' {
  const action =
    typeof rawArgs === 'object' && rawArgs !== null
      ? (rawArgs as { action?: unknown }).action
      : undefined;
  return action === 'get' ? 'LOW' : 'MEDIUM';
}

/** The `clipboard` tool. */
export function createClipboardTool(session: AndroidToolSession): AnyToolDefinition {
  return defineDeviceTool(session, {
    id: 'clipboard',
    description: `Reads ("get") or replaces ("set") the device clipboard. "get" is LOW risk; "set" is MEDIUM (what is pasted next can reach any app), so it asks the user first unless the deployment's policy or a grant decides. Needs the Clipper helper app (${CLIPPER_PACKAGE}) because stock Android gives adb no clipboard access; without it the tool says so. To type into a field, use input_text.`,
    inputSchema: ToolSchema.object({
      action: z.enum(['get', 'set']).describe('"get" the clipboard text, or "set" it to "text".'),
      text: z.string().max(10_000).optional().describe('The new clipboard text (set only).'),
      serial: serialField,
    }),
    metadata: {
      category: 'system',
      risk: 'LOW',
      tags: ['clipboard'],
      annotations: { ...ToolHints.mutating, idempotentHint: true, sensitiveAction: true },
    },
    riskOf: clipboardRisk,
    runPolicy: RunPolicies.quickRead,
    async execute(args, context) {
      const { device, signal } = context;
      if (args.action === 'set') {
        if (args.text === undefined)
          return failureResult(ToolErrorCode.INVALID_ARGUMENT, 'text: required for "set"', {
            field: 'text',
          });
        if (!(await writeClipboard(device, args.text, signal))) return clipperMissing();
        return successResult(`Clipboard set (${[...args.text].length} characters).`);
      }
      const text = await readClipboard(device, signal);
      if (text === undefined) return clipperMissing();
      if (text === '') return successResult('The clipboard is empty.', { data: { text } });
      // Any app on the device can write the clipboard: its text is cleaned and marked.
      const cleaned = cleanUntrustedText(text);
      const removed =
        cleaned.invisibleRemoved + cleaned.commentsRemoved > 0
          ? `\nRemoved ${cleaned.invisibleRemoved} invisible character${cleaned.invisibleRemoved === 1 ? '' : 's'} and ${cleaned.commentsRemoved} hidden comment${cleaned.commentsRemoved === 1 ? '' : 's'} (possible hidden instructions).`
          : '';
      return successResult(
        `Clipboard (${[...cleaned.text].length} characters):\n${untrustedMarkers('device-screen').notice}\n${markUntrusted(cleaned.text, 'device-screen')}${removed}`,
        { data: { text: cleaned.text } },
      );
    },
  });
}
