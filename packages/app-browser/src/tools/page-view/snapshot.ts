import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  ToolErrorCode,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { compileFind, webPageBlock } from '../../page-text.js';
import { snapshotViewOf } from '../../snapshot-pages.js';
import { pageSnapshotAsync, type SnapshotPage } from '../../snapshot-paging.js';
import { findByRef } from '../../snapshot-render.js';
import {
  type BrowserToolSettings,
  defineBrowserTool,
  maxTokensField,
  pickTab,
  tabField,
} from '../browser-tool.js';
import { NOTHING_SHOWN, showPageWithin, takeEventLines, titleLine } from '../page-result.js';
import { READ_METADATA } from './shared.js';

const snapshotSchema = ToolSchema.object({
  tab: tabField,
  ref: z.string().max(40).optional().describe('Only this element.'),
  find: z.string().min(1).max(500).optional().describe('Only lines with this text.'),
  regex: z.boolean().default(false).describe('find is an RE2 regex.'),
  cursor: z.number().int().min(0).optional().describe('From a cut marker.'),
  page: z
    .string()
    .regex(/^[0-9a-f]{8}$/, 'expected the 8 hex digits of a cut marker\'s "page: …"')
    .optional()
    .describe('From the same cut marker.'),
  expand: z.boolean().default(false).describe('Show all repeated items.'),
  urls: z.boolean().default(false).describe('Show link targets.'),
  maxTokens: maxTokensField,
});

/** A resume note: its first line is the tools' own, the nodes it lists go in a web-page block. */
function noteLines(note: string | undefined): string[] {
  if (note === undefined) return [];
  const [head, ...listed] = note.split('\n');
  return [head as string, ...(listed.length === 0 ? [] : [webPageBlock(listed)])];
}

/** `browser_snapshot`: the page of a tab as an accessibility tree, within a token budget. */
export function createSnapshotTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineBrowserTool(settings, {
    id: 'browser_snapshot',
    description:
      'Reads a tab as an accessibility tree with a ref per element, cut at the token budget with a cursor.',
    inputSchema: snapshotSchema,
    metadata: READ_METADATA,
    runPolicy: RunPolicies.quickRead,
    async run(args, { session, context, settings: resolved }) {
      // Patterns run on the linear-time engine; one it cannot run is refused on `find`.
      const find = args.find === undefined ? undefined : compileFind(args.find, args.regex);
      if (args.page !== undefined && args.cursor === undefined) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          'page: goes with cursor; both come from the same cut marker',
          { field: 'page', hint: 'Pass cursor and page as the cut marker names them.' },
        );
      }
      const tab = await pickTab(session, args.tab);
      const snapshot = await tab.snapshot(resolved.redact, resolved.readTimeoutMs, context.signal);
      tab.lastSnapshot = snapshot;
      if (args.ref !== undefined) tab.locate(args.ref);
      if (args.ref !== undefined && findByRef(snapshot.nodes, args.ref.trim()) === undefined) {
        return failureResult(
          ToolErrorCode.NOT_FOUND,
          `ref: element ${args.ref} is not shown in the accessibility tree (it is hidden or decorative)`,
          { field: 'ref', hint: 'Take a browser_snapshot without ref and pick a ref from it.' },
        );
      }
      const emptyAt = (start: number) =>
        find !== undefined
          ? 'No node matches find (it searches the lines as shown, secrets redacted). Try other words, or browser_snapshot without find.'
          : start > 0
            ? `Nothing after cursor ${start}: the end of the page was already shown.`
            : NOTHING_SHOWN;
      const shown = await showPageWithin<SnapshotPage>({
        settings: resolved,
        tab,
        snapshot,
        maxTokens: args.maxTokens ?? resolved.maxTokens,
        between: takeEventLines(session),
        signal: context.signal,
        render: async (pageTokens, continuedTokens) => {
          const paged = (await pageSnapshotAsync(
            {
              nodes: snapshot.nodes,
              pages: session.snapshotPages,
              tabId: tab.id,
              view: snapshotViewOf(args),
              maxTokens: pageTokens,
              continuedMaxTokens: continuedTokens,
              where: titleLine(snapshot.title, snapshot.url),
              ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
              ...(args.page === undefined ? {} : { page: args.page }),
              ...(args.ref === undefined ? {} : { scopeRef: args.ref.trim() }),
              ...(find === undefined ? {} : { find }),
              expand: args.expand,
              urls: args.urls,
              pageUrl: snapshot.url,
            },
            context.signal,
          )) as SnapshotPage;
          // How the cursor was followed is the tools' own line; nodes it lists are page content.
          return {
            rendered: paged.rendered,
            start: paged.start,
            between: noteLines(paged.note),
            empty: emptyAt(paged.start),
            ...(paged.continued
              ? { continued: { page: paged.rendered.page, start: paged.start } }
              : {}),
            value: paged,
          };
        },
      });
      const { rendered, whole } = shown;
      const paged = shown.value as SnapshotPage;
      const lines = shown.lines;
      return {
        ok: true,
        content: lines.join('\n'),
        data: {
          tab: tab.id,
          url: snapshot.url,
          title: snapshot.title,
          totalNodes: rendered.totalNodes,
          shownNodes: rendered.shownNodes,
          tokens: shown.tokens,
          ...(rendered.nextCursor === undefined ? {} : { nextCursor: rendered.nextCursor }),
          page: rendered.page,
          ...(paged.resumed === undefined ? {} : { resumed: paged.resumed }),
          ...(paged.continued ? { continued: true } : {}),
          ...(whole === undefined ? {} : { savedTo: whole.path }),
        },
        ...(whole === undefined ? {} : { artifacts: [whole.artifact] }),
      };
    },
  });
}
