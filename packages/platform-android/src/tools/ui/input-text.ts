import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  type ToolReturn,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { cleanUntrustedLine } from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import type { AndroidDevice } from '../../android-device.js';
import type { AndroidToolSession } from '../../android-session.js';
import { KEYBOARD_RULE } from '../../device-telemetry.js';
import { parseCurrentInputMethod } from '../../parsers/device-state.js';
import { quoteShell } from '../../shell-quote.js';
import { describeChange, diffScreens } from '../../ui-diff.js';
import { centerOf, isEditable } from '../../ui-hierarchy.js';
import { defineDeviceTool, serialField } from '../device-tool.js';
import { CLIPPER_PACKAGE, readClipboard, writeClipboard } from '../media/clipboard.js';
import {
  appNodes,
  isResolved,
  resolveTarget,
  screenRules,
  shortLabel,
  targetFields,
} from './shared.js';

/** The ADBKeyboard IME (`com.android.adbkeyboard`) input_text uses for non-ASCII text when installed. */
export const ADB_KEYBOARD_IME = 'com.android.adbkeyboard/.AdbIME';

/** Types ASCII with `input text` (spaces as %s; one call per line, ENTER between lines). */
async function typeAscii(
  device: AndroidDevice,
  text: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    for (let offset = 0; offset < line.length; offset += 200) {
      const piece = line.slice(offset, offset + 200).replaceAll(' ', '%s');
      const output = await device.shell(`input text ${quoteShell(piece)}`, { signal });
      if (/Exception|Error:/.test(output)) return output.trim().split('\n')[0];
    }
    if (index < lines.length - 1) await device.shell('input keyevent KEYCODE_ENTER', { signal });
  }
  return undefined;
}

/** The path used for non-ASCII text, or a refusal when the device has none. */
async function typeUnicode(
  device: AndroidDevice,
  text: string,
  signal: AbortSignal,
): Promise<{ method: string } | ToolReturn> {
  const packages = await device.shell('pm list packages', { signal });
  if (
    packages.includes('package:com.android.adbkeyboard\n') ||
    packages.trimEnd().endsWith('package:com.android.adbkeyboard')
  ) {
    const previous = parseCurrentInputMethod(
      await device.shell('dumpsys input_method', { signal }),
    );
    await device.shell(`ime set ${ADB_KEYBOARD_IME}`, { signal });
    try {
      await device.shell(
        `am broadcast -a ADB_INPUT_B64 --es msg ${Buffer.from(text, 'utf8').toString('base64')}`,
        { signal },
      );
    } finally {
      if (previous && previous !== ADB_KEYBOARD_IME)
        await device.shell(`ime set ${quoteShell(previous)}`).catch(() => '');
    }
    return { method: 'ADBKeyboard broadcast (ADB_INPUT_B64)' };
  }
  if (packages.includes(`package:${CLIPPER_PACKAGE}`)) {
    const saved = await readClipboard(device, signal);
    if (!(await writeClipboard(device, text, signal))) return unicodeUnsupported();
    await device.shell('input keyevent KEYCODE_PASTE', { signal });
    if (saved !== undefined) await writeClipboard(device, saved, signal).catch(() => false);
    return { method: 'clipboard paste (Clipper + KEYCODE_PASTE)' };
  }
  return unicodeUnsupported();
}

function unicodeUnsupported(): ToolReturn {
  return failureResult(
    ToolErrorCode.UNSUPPORTED,
    'This text has non-ASCII characters, which `adb shell input text` cannot type, and the device has no helper for them.',
    {
      hint: `Install ADBKeyboard (com.android.adbkeyboard) or Clipper (${CLIPPER_PACKAGE}) with app_install and retry, or type ASCII only.`,
    },
  );
}

/** The `input_text` tool. */
export function createInputTextTool(session: AndroidToolSession): AnyToolDefinition {
  return defineDeviceTool(session, {
    id: 'input_text',
    description:
      'Types text into the focused field on the Android screen (or first taps the field given by ref / resourceId). Through adb, ASCII goes through `input text` and other text (accents, CJK, emoji) through the ADBKeyboard IME or a clipboard paste (Clipper), whichever the device has; through Appium, any text is set through the driver. The result says which path ran. Checks the field afterwards. Refuses when no field has focus.',
    inputSchema: ToolSchema.object({
      text: z.string().min(1).max(5000).describe('The text to type. Newlines press Enter.'),
      ref: targetFields.ref.describe('Ref of the field to tap first (from ui_dump).'),
      resourceId: targetFields.resourceId.describe('resource-id of the field to tap first.'),
      clear: z.boolean().default(false).describe("Delete the field's current text first."),
      submit: z.boolean().default(false).describe('Press Enter after typing.'),
      serial: serialField,
    }),
    metadata: {
      category: 'ui',
      risk: 'MEDIUM',
      tags: ['ui', 'input'],
      annotations: ToolHints.mutating,
    },
    runPolicy: RunPolicies.mutating,
    environmentRules: [...screenRules, KEYBOARD_RULE],
    async execute(args, context) {
      const { device, signal, session: shared } = context;
      const previous = shared.lastSnapshot(device.serial, context.owner);
      let before = await shared.snapshot(device, context.owner, { signal });
      if (args.ref !== undefined || args.resourceId !== undefined) {
        const resolved = resolveTarget(
          { ref: args.ref, resourceId: args.resourceId },
          before,
          previous,
        );
        if (!isResolved(resolved)) return resolved;
        if (!isEditable(resolved.node)) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `${shortLabel(resolved.node)} is not a text field.`,
            {
              field: args.ref !== undefined ? 'ref' : 'resourceId',
              hint: 'Pick a node marked "editable" in ui_dump.',
            },
          );
        }
        if (!resolved.node.focused) {
          const { value: error } = await shared.withUiBackend(device.serial, (backend) =>
            backend.tap(
              device,
              { node: resolved.node, roots: before.roots, point: centerOf(resolved.node) },
              { signal },
            ),
          );
          if (error !== undefined) {
            return failureResult(
              ToolErrorCode.EXECUTION_FAILED,
              `Tapping the field failed: ${error}`,
            );
          }
          await shared.settle(signal);
          before = await shared.snapshot(device, context.owner, { signal });
        }
      }
      const field = appNodes(before).find((node) => node.focused && isEditable(node));
      if (!field) {
        return failureResult(
          ToolErrorCode.UNSUPPORTED,
          'No text field has focus, so there is nowhere to type.',
          {
            hint: 'Tap an input field first (ui_tap, or pass "ref" of an editable node from ui_dump), then retry.',
          },
        );
      }
      const backend = await shared.uiBackend();
      let method = backend.typeText ? `${backend.name} element value` : 'adb input text';
      if (backend.typeText) {
        // One value per line, with Enter between lines, as the adb path types them.
        const lines = args.text.split('\n');
        for (let index = 0; index < lines.length; index++) {
          if (index > 0) await device.shell('input keyevent KEYCODE_ENTER', { signal });
          const line = lines[index] as string;
          if (line === '' && !(index === 0 && args.clear)) continue;
          method = await backend.typeText(device, field, before.roots, line, {
            signal,
            clear: index === 0 && args.clear,
          });
        }
        if (args.submit) await device.shell('input keyevent KEYCODE_ENTER', { signal });
      } else if (args.clear && field.text !== '') {
        const deletes = Array.from(
          { length: Math.min([...field.text].length, 500) },
          () => '67',
        ).join(' ');
        await device.shell(`input keyevent 123 && input keyevent ${deletes}`, { signal });
      }
      if (backend.typeText) {
        // Typed above.
      } else if (/^[\x20-\x7e\n]*$/.test(args.text)) {
        const error = await typeAscii(device, args.text, signal);
        if (error !== undefined)
          return failureResult(ToolErrorCode.EXECUTION_FAILED, `Typing failed: ${error}`);
      } else {
        const typed = await typeUnicode(device, args.text, signal);
        if (!(typeof typed === 'object' && 'method' in typed)) return typed;
        method = typed.method;
      }
      if (args.submit && !backend.typeText) {
        await device.shell('input keyevent KEYCODE_ENTER', { signal });
      }
      await shared.settle(signal);
      const after = await shared.snapshot(device, context.owner, { signal });
      const now = appNodes(after).find((node) => node.ref === field.ref);
      const label = shortLabel(field).replace(
        / ".*"$/,
        field.resourceId ? ` "${field.resourceId}"` : '',
      );
      if (field.password) {
        return successResult(
          `Typed ${[...args.text].length} characters into password field ${label} via ${method}.`,
          { data: { method } },
        );
      }
      if (now?.text.includes(args.text.replaceAll('\n', ''))) {
        return successResult(
          `Typed into ${label} via ${method}; it now reads "${cleanUntrustedLine(now.text, 2_000)}".`,
          {
            data: { method, text: now.text },
          },
        );
      }
      if (args.submit && !now) {
        return successResult(
          `Typed and submitted via ${method}. ${describeChange(diffScreens(before, after))}`,
          { data: { method } },
        );
      }
      return failureResult(
        ToolErrorCode.EXECUTION_FAILED,
        `Typed via ${method}, but ${label} reads "${now?.text ?? '(gone)'}", not the text sent.`,
        {
          hint: 'The field may filter input (numbers only, length limit) or focus moved; check with ui_dump.',
          details: { method },
        },
      );
    },
  });
}
