/**
 * `pnpm bench browser`: the run itself. Pages in browser-pages.ts, the peers in browser-peers.ts,
 * how a page is read in browser-reading.ts, the report in browser-report.ts.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { removeOnExit } from '../cleanup.js';
import type { Bench } from '../report.js';
import {
  benchPages,
  COUNTER,
  DOCS_PREFIX,
  PYTHON_DOC_PAGES,
  PYTHON_DOCS,
  serve,
} from './browser-pages.js';
import { call, type Peer, startOurs, startTheirs, stop } from './browser-peers.js';
import {
  type BudgetCheck,
  coveredNames,
  DEFAULT_BUDGET,
  DELTA_BUDGET,
  interactiveNames,
  reachableOutput,
  readWholePage,
  refOf,
  tryBudgets,
  withLinkedSnapshot,
} from './browser-reading.js';
import { browserReport, type PageFigures, type ProseFigures } from './browser-report.js';

/** `pnpm bench browser`: app-browser over MCP stdio vs @playwright/mcp on the same local pages. */
export const browserBench: Bench = {
  name: 'browser',
  summary:
    'snapshot tokens and click-then-see latency: app-browser (toolsys serve --stdio) vs @playwright/mcp',
  async run({ quick }) {
    const scratch = removeOnExit(mkdtempSync(join(tmpdir(), 'toolsys-bench-browser-')));
    const pages = benchPages(quick);
    const { server, origin } = await serve(pages);
    const peers: Peer[] = [];
    try {
      peers.push(await startOurs(scratch));
      peers.push(await startTheirs(scratch, origin, true));
      peers.push(await startTheirs(scratch, origin, false));
      const [ours, theirs] = peers as [Peer, Peer, Peer];
      const figures: PageFigures[] = [];
      const prose: ProseFigures[] = [];
      const checks: BudgetCheck[] = [];
      /** Reads a prose page whole on our side and records it against their one snapshot. */
      const readProse = async (
        page: string,
        theirsText: string,
        oursText: string,
        real: boolean,
      ) => {
        const texts = await readWholePage(ours);
        const textOnly = await call(theirs, 'browser_evaluate', {
          function: '() => document.body.innerText',
        });
        for (const [index, text] of texts.entries()) {
          checks.push({
            page,
            what: `read-all p${index + 1}`,
            budget: DEFAULT_BUDGET,
            tokens: countTokens(text),
          });
        }
        const readAllTokens = texts.reduce((total, text) => total + countTokens(text), 0);
        prose.push({
          page,
          oursFirstTokens: countTokens(oursText),
          theirsTokens: countTokens(theirsText),
          readAllCalls: texts.length,
          readAllTokens,
          readAllRatio: readAllTokens / countTokens(theirsText),
          real,
          textOnlyRatio: countTokens(textOnly) / countTokens(theirsText),
        });
      };

      for (const page of pages) {
        const url = `${origin}/${page.name}`;
        for (const peer of peers) {
          const text = await call(peer, 'browser_navigate', { url });
          if (peer === ours) {
            checks.push({
              page: page.name,
              what: 'navigate',
              budget: DEFAULT_BUDGET,
              tokens: countTokens(text),
            });
          }
        }
        const names = await interactiveNames(theirs);
        const oursText = await call(ours, 'browser_snapshot', {});
        const theirsText = await call(theirs, 'browser_snapshot', {});
        const reach = await reachableOutput(ours);
        checks.push(...(await tryBudgets(ours, page.name, names[names.length - 1] ?? COUNTER)));
        if (page.name === 'docs') await readProse(page.name, theirsText, oursText, false);
        figures.push({
          page: page.name,
          interactive: names.length,
          oursTokens: countTokens(oursText),
          theirsTokens: countTokens(theirsText),
          ratio: countTokens(oursText) / countTokens(theirsText),
          oursCovered: coveredNames(reach.text, names).size / names.length,
          theirsCovered: coveredNames(theirsText, names).size / names.length,
          oursReachCalls: reach.calls,
          oursReachTokens: reach.tokens,
          oursClickMs: [],
          theirsClickMs: [],
          theirsNoSettleClickMs: [],
          oursClickTokens: 0,
          theirsClickTokens: 0,
        });
      }

      // Real documentation pages, when python3-doc is installed.
      const docsInstalled = existsSync(join(PYTHON_DOCS, PYTHON_DOC_PAGES[0] as string));
      const docPages = docsInstalled ? PYTHON_DOC_PAGES.slice(0, quick ? 2 : undefined) : [];
      const skippedPages: string[] = [];
      for (const path of docPages) {
        const url = `${origin}${DOCS_PREFIX}${path}`;
        try {
          const navigated = await call(ours, 'browser_navigate', { url });
          checks.push({
            page: path,
            what: 'navigate',
            budget: DEFAULT_BUDGET,
            tokens: countTokens(navigated),
          });
          await call(theirs, 'browser_navigate', { url });
          const oursText = await call(ours, 'browser_snapshot', {});
          const theirsText = await call(theirs, 'browser_snapshot', {});
          await readProse(path, theirsText, oursText, true);
          checks.push(...(await tryBudgets(ours, path, 'operator')));
        } catch (error) {
          // A side that cannot walk a page in time (a loaded machine) skips it, and says so.
          skippedPages.push(`${path}: ${(error as Error).message.split('\n')[0]}`);
        }
      }

      // Click-then-see: one round = every page, every side, in an order that rotates per round
      // so no side always goes first. Round 0 is warm-up.
      const rounds = quick ? 1 : 6;
      for (let pass = 0; pass <= rounds; pass += 1) {
        for (const [index, page] of pages.entries()) {
          const figure = figures[index] as PageFigures;
          const url = `${origin}/${page.name}`;
          // Every side reloads the page so each click starts from the same state.
          for (const peer of peers) await call(peer, 'browser_navigate', { url });
          const shift = pass % peers.length;
          const order = [...peers.slice(shift), ...peers.slice(0, shift)];
          for (const peer of order) {
            const snapshot = await call(peer, 'browser_snapshot', {});
            const ref = refOf(snapshot, COUNTER);
            if (ref === undefined) throw new Error(`${peer.label}: no ref for "${COUNTER}"`);
            const started = performance.now();
            const text = await call(
              peer,
              'browser_click',
              // Their schema names the ref `target` and wants a description of the element.
              peer.side === 'ours' ? { ref } : { target: ref, element: `${COUNTER} button` },
            );
            const seen = peer.side === 'ours' ? text : await withLinkedSnapshot(text, scratch);
            const elapsed = performance.now() - started;
            // The click is seen only when its result shows the new status line.
            if (!seen.includes('Clicked 1 times'))
              throw new Error(
                `${peer.label}: the click result on ${page.name} does not show its effect: ${seen.slice(0, 400)}`,
              );
            if (pass === 0) continue;
            if (peer.side === 'ours') {
              checks.push({
                page: page.name,
                what: 'click',
                budget: DELTA_BUDGET,
                tokens: countTokens(seen),
              });
              figure.oursClickMs.push(elapsed);
              figure.oursClickTokens = countTokens(seen);
            } else if (peer.side === 'theirs') {
              figure.theirsClickMs.push(elapsed);
              figure.theirsClickTokens = countTokens(seen);
            } else {
              figure.theirsNoSettleClickMs.push(elapsed);
            }
          }
        }
      }

      return browserReport({
        figures,
        prose,
        checks,
        docsInstalled,
        docPages,
        skippedPages,
        rounds,
      });
    } finally {
      for (const peer of peers) await stop(peer);
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};
