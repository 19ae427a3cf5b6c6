import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AnyToolDefinition,
  cleanUntrustedLine,
  failureResult,
  markUntrusted,
  RunPolicies,
  successResult,
  type ToolEnvironmentRule,
  ToolErrorCode,
  ToolHints,
  type ToolReturn,
  ToolSchema,
  untrustedMarkers,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { AndroidDevice } from '../android-device.js';
import type { AndroidToolSession, UiSnapshot } from '../android-session.js';
import { KEYBOARD_RULE, SCREEN_RULES } from '../device-telemetry.js';
import { parseCurrentInputMethod } from '../parsers/device-state.js';
import { decodePng, downscale, encodePng, isAllBlack, isPng } from '../png-image.js';
import { quoteShell } from '../shell-quote.js';
import { countTokens } from '../token-count.js';
import type { UiBackend } from '../ui-backend.js';
import { describeChange, diffScreens } from '../ui-diff.js';
import {
  centerOf,
  flattenNodes,
  isEditable,
  isKeyboardWindow,
  type UiNode,
} from '../ui-hierarchy.js';
import { sameContext, targetContext } from '../ui-target-context.js';
import { screenTokenOf } from '../ui-tree-captures.js';
import { pageUiTree } from '../ui-tree-page.js';
import { resumeUiTreePage, type UiTreeResume } from '../ui-tree-resume.js';
import { renderUiTree } from '../ui-tree-text.js';
import { type DeviceToolContext, defineDeviceTool, serialField } from './device-tool.js';
import { CLIPPER_PACKAGE, readClipboard, writeClipboard } from './media.js';

/** The ADBKeyboard IME (`com.android.adbkeyboard`) input_text uses for non-ASCII text when installed. */
export const ADB_KEYBOARD_IME = 'com.android.adbkeyboard/.AdbIME';

const targetFields = {
  ref: z
    .string()
    .regex(/^e[0-9]{3,6}$/, 'expected a ref from ui_dump such as e048 (without the brackets)')
    .optional()
    .describe('Ref of the node from the latest ui_dump, e.g. "e048".'),
  text: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe('Visible text of the node (exact, else a unique case-insensitive part).'),
  resourceId: z
    .string()
    .min(1)
    .max(300)
    .optional()
    .describe('resource-id of the node, full ("com.app:id/send") or short ("send").'),
  contentDesc: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe('content-desc (accessibility label) of the node.'),
};

type TargetArgs = {
  ref?: string | undefined;
  text?: string | undefined;
  resourceId?: string | undefined;
  contentDesc?: string | undefined;
};

interface Resolved {
  readonly node: UiNode;
  readonly note?: string;
  /** The text beside the node that says what acting on it means (a dialog's message), if any. */
  readonly beside?: string;
}

function shortLabel(node: UiNode): string {
  const name = node.className.slice(node.className.lastIndexOf('.') + 1);
  const text = node.text || node.contentDesc || node.resourceId;
  return `${node.ref ? `[${node.ref}] ` : ''}${name}${text ? ` "${cleanUntrustedLine(text, 200)}"` : ''}`;
}

/** Labels of a context as the model reads them: cleaned, quoted, the list bounded. */
function quoteLabels(labels: readonly string[]): string {
  if (labels.length === 0) return 'nothing';
  const shown = labels.slice(0, 6).map((label) => `"${cleanUntrustedLine(label, 200)}"`);
  return `${shown.join(', ')}${labels.length > 6 ? `, … (${labels.length} texts)` : ''}`;
}

function appNodes(snapshot: UiSnapshot): UiNode[] {
  return flattenNodes(snapshot.roots.filter((root) => !isKeyboardWindow(root)));
}

/**
 * Finds the node a tap or swipe targets on the current screen. Refused (as a result) when the ref
 * is gone since the last ui_dump, when nothing matches, or when a selector matches several nodes.
 */
function resolveTarget(
  args: TargetArgs,
  snapshot: UiSnapshot,
  previous: UiSnapshot | undefined,
): Resolved | ToolReturn {
  const nodes = appNodes(snapshot);
  if (args.ref !== undefined) {
    const found = nodes.find((candidate) => candidate.ref === args.ref);
    const earlier = previous
      ? appNodes(previous).find((candidate) => candidate.ref === args.ref)
      : undefined;
    // A short ref can name another node on another screen: the node must be the one it named.
    const node = found && earlier && earlier.key !== found.key ? undefined : found;
    if (!node) {
      return failureResult(
        ToolErrorCode.NOT_FOUND,
        earlier
          ? `The screen changed since the last ui_dump: ${shortLabel(earlier)} is no longer on screen (foreground now ${snapshot.telemetry.foreground?.activity ?? 'unknown'}). Nothing was tapped.`
          : `No node with ref ${args.ref} is on the current screen. Nothing was tapped.`,
        { field: 'ref', hint: 'Call ui_dump to see the current screen and use a ref from it.' },
      );
    }
    const surroundings = checkSurroundings(node, snapshot, earlier, previous, 'ref');
    if ('refusal' in surroundings) return surroundings.refusal;
    const beside = surroundings.beside === undefined ? {} : { beside: surroundings.beside };
    if (earlier && earlier.bounds.join() !== node.bounds.join()) {
      return {
        node,
        note: `${shortLabel(node)} moved since the last ui_dump; acted at its current position.`,
        ...beside,
      };
    }
    return { node, ...beside };
  }
  const matchers: [string, string, (node: UiNode) => string][] = [];
  if (args.text !== undefined) matchers.push(['text', args.text, (node) => node.text]);
  if (args.resourceId !== undefined) {
    matchers.push([
      'resourceId',
      args.resourceId,
      (node) =>
        args.resourceId?.includes(':id/')
          ? node.resourceId
          : node.resourceId.slice(node.resourceId.indexOf(':id/') + 4),
    ]);
  }
  if (args.contentDesc !== undefined)
    matchers.push(['contentDesc', args.contentDesc, (node) => node.contentDesc]);
  let candidates = nodes.filter((node) =>
    matchers.every(([, wanted, read]) => read(node) === wanted),
  );
  if (candidates.length === 0 && args.text !== undefined) {
    const needle = args.text.toLowerCase();
    candidates = nodes.filter(
      (node) =>
        node.text.toLowerCase().includes(needle) &&
        matchers
          .filter(([name]) => name !== 'text')
          .every(([, wanted, read]) => read(node) === wanted),
    );
  }
  const field = matchers[0]?.[0] ?? 'ref';
  if (candidates.length === 0) {
    return failureResult(
      ToolErrorCode.NOT_FOUND,
      `Nothing on the current screen matches ${matchers.map(([name, wanted]) => `${name}=${JSON.stringify(wanted)}`).join(' and ')}. Nothing was tapped.`,
      {
        field,
        hint: 'Call ui_dump to see what is on screen (scroll with ui_swipe if the node is further down).',
      },
    );
  }
  if (candidates.length > 1) {
    return failureResult(
      ToolErrorCode.INVALID_ARGUMENT,
      `${candidates.length} nodes match; say which one: ${candidates.slice(0, 10).map(shortLabel).join(', ')}${candidates.length > 10 ? ', …' : ''}.`,
      {
        field,
        hint: 'Retry with "ref" of one candidate, or add resourceId/contentDesc to narrow the selector.',
        details: {
          candidates: candidates.slice(0, 10).map((node) => node.ref || shortLabel(node)),
        },
      },
    );
  }
  const node = candidates[0] as UiNode;
  // The node the model saw under this selector, if the last dump had it: same check as a ref.
  const earlier = previous
    ? appNodes(previous).find((candidate) => candidate.key === node.key)
    : undefined;
  const surroundings = checkSurroundings(node, snapshot, earlier, previous, field);
  if ('refusal' in surroundings) return surroundings.refusal;
  return surroundings.beside === undefined ? { node } : { node, beside: surroundings.beside };
}

/**
 * Compares the texts around a node now with those around it in the dump the model saw: the same
 * node among other words ("Save your draft?" became "Factory reset?") is another act, refused
 * with what the screen reads now. Otherwise gives the text that says what the act means.
 */
function checkSurroundings(
  node: UiNode,
  snapshot: UiSnapshot,
  earlier: UiNode | undefined,
  previous: UiSnapshot | undefined,
  field: string,
): { refusal: ToolReturn } | { beside?: string } {
  const now = targetContext(snapshot.roots, node);
  const seen = earlier && previous ? targetContext(previous.roots, earlier) : undefined;
  if (now && seen && !sameContext(now, seen)) {
    return {
      refusal: failureResult(
        ToolErrorCode.NOT_FOUND,
        `The screen around ${shortLabel(node)} changed since the last ui_dump: it now reads ${quoteLabels(now.labels)} (the ui_dump showed ${quoteLabels(seen.labels)}). Nothing was tapped.`,
        {
          field,
          hint: 'Call ui_dump to read the current screen, and decide again whether to act on it.',
        },
      ),
    };
  }
  return now?.headline === undefined ? {} : { beside: now.headline };
}

/**
 * Refuses a target whose centre lies under the soft keyboard: a tap there would hit a key, not the
 * node (uiautomator still lists nodes the keyboard covers).
 */
function coveredByKeyboard(
  node: UiNode,
  snapshot: UiSnapshot,
  field: string,
): ToolReturn | undefined {
  const keyboard = snapshot.roots.find(isKeyboardWindow);
  if (!keyboard) return undefined;
  const { x, y } = centerOf(node);
  const [left, top, right, bottom] = keyboard.bounds;
  if (x < left || x >= right || y < top || y >= bottom) return undefined;
  return failureResult(
    ToolErrorCode.UNSUPPORTED,
    `${shortLabel(node)} is behind the on-screen keyboard; a tap there would hit a key. Nothing was tapped.`,
    {
      field,
      hint: 'Scroll it above the keyboard (ui_swipe down on its list), or tap outside the text field to close the keyboard, then ui_dump again.',
    },
  );
}

function isResolved(value: Resolved | ToolReturn): value is Resolved {
  return typeof value === 'object' && 'node' in value;
}

function countTargets(
  args: TargetArgs & { x?: number | undefined; y?: number | undefined },
): number {
  const selector =
    args.text !== undefined || args.resourceId !== undefined || args.contentDesc !== undefined;
  return (
    (args.ref !== undefined ? 1 : 0) +
    (selector ? 1 : 0) +
    (args.x !== undefined || args.y !== undefined ? 1 : 0)
  );
}

function screenSize(snapshot: UiSnapshot): { width: number; height: number } {
  const root = snapshot.roots[0];
  return root ? { width: root.bounds[2], height: root.bounds[3] } : { width: 0, height: 0 };
}

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

async function actAndReport(
  context: DeviceToolContext,
  before: UiSnapshot,
  act: (backend: UiBackend) => Promise<string | undefined>,
  what: string,
  note: string | undefined,
): Promise<ToolReturn> {
  const { value: error, backend } = await context.session.withUiBackend(context.device.serial, act);
  if (error !== undefined)
    return failureResult(ToolErrorCode.EXECUTION_FAILED, `${what} failed: ${error}`);
  await context.session.settle(context.signal);
  const after = await context.session.snapshot(context.device, context.sessionId, {
    signal: context.signal,
  });
  const change = diffScreens(before, after);
  const prefix = note ? `${note} ` : '';
  const content = change.changed
    ? `${prefix}${what} (via ${backend}). ${describeChange(change)}`
    : `${prefix}${what} (via ${backend}), but nothing on screen changed (no new screen, no node appeared or changed). The target may not react to taps, or the app is busy; check with ui_dump or try another target.`;
  return successResult(content, { data: { changed: change.changed, change, backend } });
}

/** Real tokens the untrusted-content notice and markers add around the tree lines (line breaks included). */
let markedOverhead: number | undefined;
function markedOverheadTokens(): number {
  if (markedOverhead === undefined) {
    const { notice, open, close } = untrustedMarkers('device-screen');
    markedOverhead = countTokens(`${notice}\n${open}\n\n${close}\n`);
  }
  return markedOverhead;
}

/** What a header says about a dump that was bounded or cleaned ('' for a real screen). */
function screenNotes(snapshot: UiSnapshot): string {
  const notes: string[] = [];
  if (snapshot.skippedNodes > 0)
    notes.push(
      ` ${snapshot.skippedNodes} nodes past the nesting or node bound were skipped (no real screen has them).`,
    );
  if (snapshot.invisibleRemoved > 0)
    notes.push(
      ` Removed ${snapshot.invisibleRemoved} invisible character${snapshot.invisibleRemoved === 1 ? '' : 's'} from the screen's text (possible hidden instructions).`,
    );
  return notes.join('');
}

/** `ui_dump`, `ui_tap`, `ui_swipe`, `input_text` and `screenshot`. */
export function createUiTools(session: AndroidToolSession): AnyToolDefinition[] {
  const screenRules: readonly ToolEnvironmentRule[] = SCREEN_RULES;
  return [
    defineDeviceTool(session, {
      id: 'ui_dump',
      description:
        'Reads the current Android screen as a compact tree: one line per node; a node you can act on starts with a short stable ref ([e048], kept while the node stays on screen, also when the list scrolls), then its class when it says more than the label, "text", desc="content-desc", #short-resource-id when it has no label, and flags (a tap is implied; editable, scrollable, checked, focused …), followed by the text inside it when nothing inside can be acted on; a line that only shows text is the quoted text, without a ref. Every actionable node is kept, even without text; empty layout wrappers are dropped; the keyboard is one line. Past maxTokens the tree is cut at a line with a marker giving the call for the next page, which says if the screen changed in between; the actionable nodes of the part cut are still listed by ref, and the whole tree is saved as a text file (an artifact). Use the refs with ui_tap, ui_swipe and input_text.',
      inputSchema: ToolSchema.object({
        bounds: z
          .boolean()
          .default(false)
          .describe('Add each node\'s bounds "@[left,top][right,bottom]" in pixels.'),
        maxTokens: z
          .number()
          .int()
          .min(200)
          .max(50_000)
          .default(4000)
          .describe(
            'Budget of the whole result in real tokens (o200k), header and markers included, 200-50000.',
          ),
        cursor: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe('Start at this line, from the cut marker of an earlier ui_dump ("cursor": N).'),
        screen: z
          .string()
          .regex(/^[0-9a-f]{8}$/, 'expected the "screen" of a cut marker, such as "4f1c2a9b"')
          .optional()
          .describe(
            'With cursor: the "screen" of the same cut marker, so the page says if the screen changed since.',
          ),
        serial: serialField,
      }),
      outputSchema: ToolSchema.object({
        foreground: z.string().optional(),
        nodes: z.number(),
        actionable: z.number(),
        keyboardShown: z.boolean(),
        backend: z.enum(['adb', 'appium']),
        lines: z.number().optional(),
        nextCursor: z.number().optional(),
        screen: z.string().optional(),
        resumed: z
          .enum([
            'same-screen',
            'changed-after-cursor',
            'changed-lines-listed',
            'from-top',
            'unchecked',
          ])
          .optional(),
        savedTo: z.string().optional(),
      }),
      metadata: {
        category: 'ui',
        risk: 'LOW',
        tags: ['android', 'adb', 'ui'],
        annotations: ToolHints.readOnly,
      },
      runPolicy: RunPolicies.quickRead,
      // Reading the lock screen is harmless; only a dark screen has nothing to read.
      environmentRules: [SCREEN_RULES[0] as ToolEnvironmentRule],
      async execute(args, { device, signal, session: shared, sessionId }) {
        const snapshot = await shared.snapshot(device, sessionId, { signal });
        const tree = renderUiTree(snapshot.roots, { bounds: args.bounds });
        const foreground = snapshot.telemetry.foreground;
        // Node counts are in the structured result; the text header keeps to what the model acts on.
        const header = `Screen of ${device.serial} via ${snapshot.backend}: ${foreground ? cleanUntrustedLine(foreground.activity ?? foreground.packageName, 300) : 'unknown app'}${snapshot.telemetry.secureWindow ? ' (secure window)' : ''}, keyboard ${tree.keyboardShown ? 'shown' : 'hidden'}.${screenNotes(snapshot)}`;
        const captures = shared.client(sessionId).uiTreeCaptures;
        let start = 0;
        let screen: string | undefined;
        let resume: Exclude<UiTreeResume, { kind: 'refused' }> | undefined;
        if (args.cursor !== undefined && args.cursor > 0) {
          const kept =
            args.screen === undefined
              ? captures.latest(device.serial, args.bounds)
              : captures.find(device.serial, args.screen);
          const decided = resumeUiTreePage({
            current: tree.lines,
            cursor: args.cursor,
            ...(args.screen === undefined ? {} : { screen: args.screen }),
            ...(kept === undefined ? {} : { kept }),
          });
          if (decided.kind === 'refused') {
            return failureResult(ToolErrorCode.INVALID_ARGUMENT, decided.message, {
              field: 'cursor',
              hint: 'Call ui_dump without cursor to read the screen from the top.',
            });
          }
          resume = decided;
          start = decided.cursor;
          screen = decided.screen;
        }
        screen ??= screenTokenOf(tree.lines);
        const note = resume?.note === undefined ? '' : `${resume.note}\n`;
        // The continuation repeats the arguments that shape the lines, so the cursor means the same.
        const repeated = `${args.bounds ? ', "bounds": true' : ''}${args.maxTokens === 4000 ? '' : `, "maxTokens": ${args.maxTokens}`}${args.serial === undefined ? '' : `, "serial": ${JSON.stringify(args.serial)}`}`;
        // Where a first page that is cut leaves the whole tree (named now: its line is budgeted).
        const directory = join(shared.dataDir, 'android');
        const path = join(
          directory,
          `ui-dump-${device.serial.replaceAll(/[^\w.-]/g, '_')}-${new Date().toISOString().replaceAll(/[:.]/g, '-')}.txt`,
        );
        const savedLine = `The whole screen (${tree.lines.length} lines, no budget) is in the file ${path}`;
        // The header, a note about a changed screen and the markers come out of the page's
        // budget, in real tokens; so does the line naming the file when a first page is cut.
        const pageBudget = (reserve: number) =>
          Math.max(
            100,
            args.maxTokens - countTokens(`${header}\n${note}`) - markedOverheadTokens() - reserve,
          );
        const cutAt = (reserve: number) =>
          pageUiTree(tree.lines, {
            maxTokens: pageBudget(reserve),
            cursor: start,
            continueWith: (cursor) =>
              `ui_dump {"cursor": ${cursor}, "screen": "${screen}"${repeated}}`,
          });
        let page = cutAt(0);
        if (page.nextCursor !== undefined && start === 0) page = cutAt(countTokens(savedLine) + 1);
        if (page.nextCursor !== undefined) {
          captures.keep(device.serial, { token: screen, bounds: args.bounds, lines: tree.lines });
        }
        const data = {
          ...(foreground ? { foreground: foreground.activity ?? foreground.packageName } : {}),
          nodes: tree.shownNodes,
          actionable: tree.actionableNodes,
          keyboardShown: tree.keyboardShown,
          backend: snapshot.backend,
          ...(resume === undefined ? {} : { resumed: resume.kind }),
        };
        // The screen's lines go between the markers; refs listed, cut markers and notes stay out.
        const body = [
          untrustedMarkers('device-screen').notice,
          markUntrusted(page.tree, 'device-screen'),
          ...page.trailer,
        ].join('\n');
        if (page.shownLines === tree.lines.length) {
          return successResult(`${header}\n${note}${body}`, { data });
        }
        const paged = {
          ...data,
          lines: tree.lines.length,
          screen,
          ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
        };
        if (start > 0) {
          return successResult(`${header}\n${note}${body}`, { data: paged });
        }
        // The first page of a cut tree also leaves the whole tree in a file, one read away.
        await mkdir(directory, { recursive: true });
        await writeFile(path, `${header}\n${tree.text}\n`);
        return successResult(`${header}\n${note}${body}\n${savedLine}`, {
          data: { ...paged, savedTo: path },
          artifacts: [
            {
              path,
              mimeType: 'text/plain',
              description: `The whole UI tree of ${device.serial} (${tree.lines.length} lines)`,
            },
          ],
        });
      },
    }),
    defineDeviceTool(session, {
      id: 'ui_tap',
      description:
        'Taps a node on the Android screen, chosen by ref (from ui_dump), by text / resourceId / contentDesc, or by x,y pixels. Before tapping it checks the node is on the current screen (a ref from a screen that has since changed is refused; an ambiguous selector lists the candidates); after tapping it reports what changed (new activity, keyboard, nodes appeared or gone), or that nothing changed.',
      inputSchema: ToolSchema.object({
        ...targetFields,
        x: z.number().int().min(0).optional().describe('X in pixels (with y), when no node fits.'),
        y: z.number().int().min(0).optional().describe('Y in pixels (with x).'),
        longPress: z
          .boolean()
          .default(false)
          .describe('Hold for about 600 ms (a long press) instead of a tap.'),
        serial: serialField,
      }),
      metadata: {
        category: 'ui',
        risk: 'MEDIUM',
        tags: ['android', 'adb', 'ui'],
        annotations: ToolHints.mutating,
      },
      runPolicy: RunPolicies.mutating,
      environmentRules: screenRules,
      async execute(args, context) {
        if (countTargets(args) !== 1) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            'Give exactly one target: "ref", a selector (text / resourceId / contentDesc), or "x" and "y".',
            { field: 'ref' },
          );
        }
        const previous = context.session.lastSnapshot(context.device.serial, context.sessionId);
        const before = await context.session.snapshot(context.device, context.sessionId, {
          signal: context.signal,
        });
        let point: { x: number; y: number };
        let what: string;
        let note: string | undefined;
        let node: UiNode | undefined;
        if (args.x !== undefined || args.y !== undefined) {
          if (args.x === undefined || args.y === undefined) {
            return failureResult(
              ToolErrorCode.INVALID_ARGUMENT,
              `${args.x === undefined ? 'x' : 'y'}: required with ${args.x === undefined ? 'y' : 'x'}`,
              { field: args.x === undefined ? 'x' : 'y' },
            );
          }
          const size = screenSize(before);
          if (args.x >= size.width || args.y >= size.height) {
            return failureResult(
              ToolErrorCode.INVALID_ARGUMENT,
              `(${args.x}, ${args.y}) is outside the ${size.width}x${size.height} screen.`,
              { field: args.x >= size.width ? 'x' : 'y' },
            );
          }
          point = { x: args.x, y: args.y };
          what = `Tapped (${args.x}, ${args.y})`;
        } else {
          const resolved = resolveTarget(args, before, previous);
          if (!isResolved(resolved)) return resolved;
          const covered = coveredByKeyboard(
            resolved.node,
            before,
            args.ref !== undefined ? 'ref' : 'text',
          );
          if (covered) return covered;
          point = centerOf(resolved.node);
          node = resolved.node;
          // The result names what was acted on, with the text that gave the tap its meaning.
          what = `Tapped ${shortLabel(resolved.node)}${resolved.beside === undefined ? '' : ` in "${cleanUntrustedLine(resolved.beside, 200)}"`} at (${point.x}, ${point.y})`;
          note = resolved.note;
        }
        return actAndReport(
          context,
          before,
          (backend) =>
            backend.tap(
              context.device,
              {
                ...(node ? { node, roots: before.roots } : {}),
                point,
                longPress: args.longPress,
              },
              { signal: context.signal },
            ),
          args.longPress ? what.replace('Tapped', 'Long-pressed') : what,
          note,
        );
      },
    }),
    defineDeviceTool(session, {
      id: 'ui_swipe',
      description:
        'Swipes on the Android screen: scrolls a list (direction "up" shows content further down), pages, or dismisses. Within a node chosen by ref / text / resourceId / contentDesc (checked on the current screen first), or the whole screen; reports what changed, or that nothing did (e.g. the end of a list).',
      inputSchema: ToolSchema.object({
        direction: z
          .enum(['up', 'down', 'left', 'right'])
          .describe('Finger direction: "up" scrolls content up (reveals what is below).'),
        ...targetFields,
        distance: z
          .number()
          .min(0.1)
          .max(0.95)
          .default(0.6)
          .describe('Swipe length as a fraction of the node (or screen) size, 0.1-0.95.'),
        durationMs: z
          .number()
          .int()
          .min(50)
          .max(3000)
          .default(300)
          .describe('Swipe duration in ms (longer = slower, less fling).'),
        serial: serialField,
      }),
      metadata: {
        category: 'ui',
        risk: 'MEDIUM',
        tags: ['android', 'adb', 'ui'],
        annotations: ToolHints.mutating,
      },
      runPolicy: RunPolicies.mutating,
      environmentRules: screenRules,
      async execute(args, context) {
        if (countTargets(args) > 1) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            'Give at most one target: "ref" or a selector (text / resourceId / contentDesc).',
            { field: 'ref' },
          );
        }
        const previous = context.session.lastSnapshot(context.device.serial, context.sessionId);
        const before = await context.session.snapshot(context.device, context.sessionId, {
          signal: context.signal,
        });
        let area: readonly [number, number, number, number];
        let where = 'the screen';
        let note: string | undefined;
        if (countTargets(args) === 1) {
          const resolved = resolveTarget(args, before, previous);
          if (!isResolved(resolved)) return resolved;
          area = resolved.node.bounds;
          where = shortLabel(resolved.node);
          note = resolved.note;
        } else {
          const size = screenSize(before);
          area = [0, Math.round(size.height * 0.1), size.width, Math.round(size.height * 0.9)];
        }
        const [left, top, right, bottom] = area;
        const cx = Math.round((left + right) / 2);
        const cy = Math.round((top + bottom) / 2);
        const dx = Math.round(((right - left) * args.distance) / 2);
        const dy = Math.round(((bottom - top) * args.distance) / 2);
        const [x1, y1, x2, y2] =
          args.direction === 'up'
            ? [cx, cy + dy, cx, cy - dy]
            : args.direction === 'down'
              ? [cx, cy - dy, cx, cy + dy]
              : args.direction === 'left'
                ? [cx + dx, cy, cx - dx, cy]
                : [cx - dx, cy, cx + dx, cy];
        return actAndReport(
          context,
          before,
          (backend) =>
            backend.swipe(context.device, { x: x1, y: y1 }, { x: x2, y: y2 }, args.durationMs, {
              signal: context.signal,
            }),
          `Swiped ${args.direction} on ${where} (${x1},${y1} → ${x2},${y2})`,
          note,
        );
      },
    }),
    defineDeviceTool(session, {
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
        tags: ['android', 'adb', 'ui', 'input'],
        annotations: ToolHints.mutating,
      },
      runPolicy: RunPolicies.mutating,
      environmentRules: [...screenRules, KEYBOARD_RULE],
      async execute(args, context) {
        const { device, signal, session: shared } = context;
        const previous = shared.lastSnapshot(device.serial, context.sessionId);
        let before = await shared.snapshot(device, context.sessionId, { signal });
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
            before = await shared.snapshot(device, context.sessionId, { signal });
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
        const after = await shared.snapshot(device, context.sessionId, { signal });
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
    }),
    defineDeviceTool(session, {
      id: 'screenshot',
      description:
        'Captures the Android screen as a PNG under the data dir (scaled so the longer side is at most maxSide) and returns its path. Says when the window is secure (FLAG_SECURE) and the capture is black; then use ui_dump to read the screen.',
      inputSchema: ToolSchema.object({
        maxSide: z
          .number()
          .int()
          .min(200)
          .max(4000)
          .default(1280)
          .describe('Longest side of the saved image in pixels (200-4000).'),
        serial: serialField,
      }),
      outputSchema: ToolSchema.object({
        path: z.string(),
        uri: z.string(),
        mimeType: z.literal('image/png'),
        width: z.number(),
        height: z.number(),
        black: z.boolean(),
        secureWindow: z.boolean(),
        backend: z.enum(['adb', 'appium']),
      }),
      metadata: {
        category: 'ui',
        risk: 'LOW',
        tags: ['android', 'adb', 'ui', 'screenshot'],
        annotations: { ...ToolHints.readOnly, sensitiveAction: true },
      },
      runPolicy: RunPolicies.quickRead,
      environmentRules: [SCREEN_RULES[0] as ToolEnvironmentRule],
      async execute(args, { device, signal, session: shared }) {
        const telemetry = await shared.telemetry(device, { signal });
        const { value: bytes, backend } = await shared.withUiBackend(device.serial, (ui) =>
          ui.screenshot(device, { signal, timeoutMs: 30_000 }),
        );
        if (device.cutOutputs.some((cut) => cut.command.startsWith('screencap'))) {
          return failureResult(
            ToolErrorCode.EXECUTION_FAILED,
            'screencap sent more bytes than a screenshot can have; reading stopped and nothing was saved.',
            { hint: 'Retry once; if it happens again, read the screen with ui_dump instead.' },
          );
        }
        if (!isPng(bytes)) {
          return failureResult(
            ToolErrorCode.EXECUTION_FAILED,
            `screencap returned no PNG: ${bytes.subarray(0, 200).toString('utf8').trim() || 'no output'}`,
            {
              hint: 'Retry once; if the screen is off, turn it on first.',
            },
          );
        }
        const decoded = decodePng(bytes);
        const black = decoded ? isAllBlack(decoded) : false;
        const image = decoded ? downscale(decoded, args.maxSide) : undefined;
        const png = image && image !== decoded ? encodePng(image) : bytes;
        const directory = join(shared.dataDir, 'android');
        await mkdir(directory, { recursive: true });
        const name = `screenshot-${device.serial.replaceAll(/[^\w.-]/g, '_')}-${new Date().toISOString().replaceAll(/[:.]/g, '-')}.png`;
        const path = join(directory, name);
        await writeFile(path, png);
        const secure = telemetry.secureWindow === true;
        const width = image?.width ?? bytes.readUInt32BE(16);
        const height = image?.height ?? bytes.readUInt32BE(20);
        let warning = '';
        if (black && secure)
          warning =
            ' The window is secure (FLAG_SECURE): Android blanks it in captures, so the image is black. Use ui_dump to read the screen.';
        else if (black && telemetry.screenOn === false)
          warning = ' The screen is off, so the image is black; turn it on first.';
        else if (black)
          warning =
            ' The image is entirely black (a secure surface such as video or DRM content, or a dark screen). Use ui_dump to read the screen.';
        else if (secure)
          warning = ' The focused window is marked secure; parts of the image may be blank.';
        return successResult(
          `Saved a ${width}x${height} screenshot of ${device.serial} (via ${backend}) to ${path}.${warning}`,
          {
            artifacts: [
              {
                path,
                mimeType: 'image/png',
                description: `A ${width}x${height} screenshot of ${device.serial}${black ? ' (black)' : ''}`,
              },
            ],
            data: {
              path,
              uri: `file://${path}`,
              mimeType: 'image/png',
              width,
              height,
              black,
              secureWindow: secure,
              backend,
            },
          },
        );
      },
    }),
  ];
}
