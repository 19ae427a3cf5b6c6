import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  type ToolEnvironmentRule,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import {
  cleanUntrustedLine,
  markUntrusted,
  untrustedMarkers,
} from '@toolsys/core-tool-registry/text';
import { artifactFileName } from '@toolsys/platform';
import { z } from 'zod';
import type { AndroidToolSession, UiSnapshot } from '../../android-session.js';
import { SCREEN_RULES } from '../../device-telemetry.js';
import { countTokens } from '../../token-count.js';
import { screenTokenOf } from '../../ui-tree-captures.js';
import { pageUiTree } from '../../ui-tree-page.js';
import { resumeUiTreePage, type UiTreeResume } from '../../ui-tree-resume.js';
import { renderUiTree } from '../../ui-tree-text.js';
import { defineDeviceTool, serialField } from '../device-tool.js';

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

/** The `ui_dump` tool. */
export function createUiDumpTool(session: AndroidToolSession): AnyToolDefinition {
  return defineDeviceTool(session, {
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
      content: z.string(),
    }),
    metadata: { category: 'ui', risk: 'LOW', tags: ['ui'], annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    // Reading the lock screen is harmless; only a dark screen has nothing to read.
    environmentRules: [SCREEN_RULES[0] as ToolEnvironmentRule],
    async execute(args, { device, signal, session: shared, owner }) {
      const snapshot = await shared.snapshot(device, owner, { signal });
      const tree = renderUiTree(snapshot.roots, { bounds: args.bounds });
      const foreground = snapshot.telemetry.foreground;
      // Node counts are in the structured result; the text header keeps to what the model acts on.
      const header = `Screen of ${device.serial} via ${snapshot.backend}: ${foreground ? cleanUntrustedLine(foreground.activity ?? foreground.packageName, 300) : 'unknown app'}${snapshot.telemetry.secureWindow ? ' (secure window)' : ''}, keyboard ${tree.keyboardShown ? 'shown' : 'hidden'}.${screenNotes(snapshot)}`;
      const captures = shared.client(owner).uiTreeCaptures;
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
      const path = join(directory, `${artifactFileName('ui-dump', device.serial)}.txt`);
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
      // The screen's lines go between the markers; refs listed, cut markers and notes stay out.
      const body = [
        untrustedMarkers('device-screen').notice,
        markUntrusted(page.tree, 'device-screen'),
        ...page.trailer,
      ].join('\n');
      const data = {
        ...(foreground ? { foreground: foreground.activity ?? foreground.packageName } : {}),
        nodes: tree.shownNodes,
        actionable: tree.actionableNodes,
        keyboardShown: tree.keyboardShown,
        backend: snapshot.backend,
        ...(resume === undefined ? {} : { resumed: resume.kind }),
        // The page as the text shows it: a client that gives the model the structured content
        // instead of the text still gives it the screen.
        content: body,
      };
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
  });
}
