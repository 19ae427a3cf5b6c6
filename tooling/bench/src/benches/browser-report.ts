/**
 * The browser bench's report: its targets, the figures each page gave, and the lines and JSON
 * they are printed as.
 */
import { type BenchReport, formatRatio, percentile } from '../report.js';
import { PYTHON_DOCS } from './browser-pages.js';
import type { BudgetCheck } from './browser-reading.js';

/** The targets the bench is judged by (see the report's `target` line). */
const TARGET_RATIO = 0.7;
const TARGET_LATENCY_RATIO = 1.0;
const TARGET_READ_ALL_RATIO = 0.6;
const TARGET_BUDGET_OVERRUN = 1.05;

/** Reading a prose page whole: ours page by page, theirs in one snapshot. */
export interface ProseFigures {
  page: string;
  /** Our first snapshot (default budget). */
  oursFirstTokens: number;
  theirsTokens: number;
  readAllCalls: number;
  readAllTokens: number;
  readAllRatio: number;
  /** A real documentation page (Python's docs), not one of the bench's generated pages. */
  real: boolean;
  /** The page's text alone (`innerText`: no roles, refs or structure) over their snapshot. */
  textOnlyRatio: number;
}

/** What one generated page gave on each side. */
export interface PageFigures {
  page: string;
  interactive: number;
  oursTokens: number;
  theirsTokens: number;
  ratio: number;
  oursCovered: number;
  theirsCovered: number;
  oursReachCalls: number;
  oursReachTokens: number;
  oursClickMs: number[];
  theirsClickMs: number[];
  theirsNoSettleClickMs: number[];
  oursClickTokens: number;
  theirsClickTokens: number;
}

/** Everything one run of the browser bench measured. */
export interface BrowserFigures {
  /** One entry per generated page, in page order. */
  figures: readonly PageFigures[];
  /** The prose pages read whole (the generated docs page and the real ones). */
  prose: readonly ProseFigures[];
  /** Every result measured against its budget. */
  checks: readonly BudgetCheck[];
  /** Whether python3-doc is installed. */
  docsInstalled: boolean;
  /** The real pages tried. */
  docPages: readonly string[];
  /** The real pages skipped, each with why. */
  skippedPages: readonly string[];
  /** Click rounds after the warm-up. */
  rounds: number;
}

/** The report of one run: the headline ratios, the per-page table and the JSON. */
export function browserReport(run: BrowserFigures): BenchReport {
  const { figures, prose, checks, docsInstalled, docPages, skippedPages, rounds } = run;
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const median = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      0.5,
    );
  const oursTokens = sum(figures.map((figure) => figure.oursTokens));
  const theirsTokens = sum(figures.map((figure) => figure.theirsTokens));
  const ratio = oursTokens / theirsTokens;
  const worstPageRatio = Math.max(...figures.map((figure) => figure.ratio));
  const oursClickMs = sum(figures.map((figure) => median(figure.oursClickMs)));
  const theirsClickMs = sum(figures.map((figure) => median(figure.theirsClickMs)));
  const latencyRatio = oursClickMs / theirsClickMs;
  const theirsNoSettleClickMs = sum(figures.map((figure) => median(figure.theirsNoSettleClickMs)));
  const latencyRatioNoSettle = oursClickMs / theirsNoSettleClickMs;
  const interactive = sum(figures.map((figure) => figure.interactive));
  const interactiveCovered =
    sum(figures.map((figure) => figure.oursCovered * figure.interactive)) / interactive;
  const theirsInteractiveCovered =
    sum(figures.map((figure) => figure.theirsCovered * figure.interactive)) / interactive;
  const readAllTokens = sum(prose.map((figure) => figure.readAllTokens));
  const proseTheirsTokens = sum(prose.map((figure) => figure.theirsTokens));
  // The target is judged on real pages, written by others; the generated docs page is
  // reported beside them (its text alone is 0.67 of their snapshot: no rendering
  // that keeps its words reaches 0.6). Without python3-doc it is all there is.
  const realProse = prose.filter((figure) => figure.real);
  const judged = realProse.length > 0 ? realProse : prose;
  const readAllRatio = Math.max(...judged.map((figure) => figure.readAllRatio));
  const generatedDocs = prose.find((figure) => !figure.real);
  const readAllRatioTotal = readAllTokens / proseTheirsTokens;
  const worstCheck = checks.reduce((worst, check) =>
    check.tokens / check.budget > worst.tokens / worst.budget ? check : worst,
  );
  const budgetOverrun = worstCheck.tokens / worstCheck.budget;
  const met =
    ratio <= TARGET_RATIO &&
    latencyRatio <= TARGET_LATENCY_RATIO &&
    interactiveCovered === 1 &&
    readAllRatio <= TARGET_READ_ALL_RATIO &&
    budgetOverrun <= TARGET_BUDGET_OVERRUN;
  const prosePages = prose.map((figure) => ({
    page: figure.page,
    oursFirstTokens: figure.oursFirstTokens,
    theirsTokens: figure.theirsTokens,
    readAllCalls: figure.readAllCalls,
    readAllTokens: figure.readAllTokens,
    readAllRatio: round(figure.readAllRatio, 3),
    real: figure.real,
    textOnlyRatio: round(figure.textOnlyRatio, 3),
  }));
  const docsNote = docsInstalled
    ? `real pages: ${docPages.length - skippedPages.length} of ${docPages.length} pages of Python's docs (python3-doc) served locally${skippedPages.map((line) => `; SKIPPED ${line}`).join('')}`
    : `real pages SKIPPED: ${PYTHON_DOCS} is missing (apt-get install -y python3-doc, or run scripts/setup.sh); readAllRatio covers the generated docs page only`;
  const perPage = figures.map((figure) => ({
    page: figure.page,
    interactive: figure.interactive,
    oursTokens: figure.oursTokens,
    theirsTokens: figure.theirsTokens,
    ratio: round(figure.ratio, 3),
    interactiveCovered: round(figure.oursCovered, 4),
    theirsInteractiveCovered: round(figure.theirsCovered, 4),
    oursReachCalls: figure.oursReachCalls,
    oursReachTokens: figure.oursReachTokens,
    oursClickP50Ms: round(median(figure.oursClickMs), 1),
    theirsClickP50Ms: round(median(figure.theirsClickMs), 1),
    theirsNoSettleClickP50Ms: round(median(figure.theirsNoSettleClickMs), 1),
    oursClickTokens: figure.oursClickTokens,
    theirsClickTokens: figure.theirsClickTokens,
  }));
  return {
    name: 'browser',
    target: `ratio <= ${TARGET_RATIO} (snapshot tokens ours / theirs), latencyRatio <= ${TARGET_LATENCY_RATIO.toFixed(1)}, interactiveCovered = 1, readAllRatio <= ${TARGET_READ_ALL_RATIO} (worst real prose page), budgetOverrun <= ${TARGET_BUDGET_OVERRUN}`,
    met,
    lines: [
      `ours: toolsys serve --stdio (app-browser, default budget); theirs: @playwright/mcp 0.0.83; o200k_base tokens; ${rounds} interleaved click rounds`,
      'page    elements  ours tok  theirs tok  ratio  covered  reach (calls/tok)  click p50 ours/theirs/no-settle ms  click tok ours/theirs',
      ...perPage.map(
        (page) =>
          `${page.page.padEnd(7)} ${String(page.interactive).padStart(8)} ${String(page.oursTokens).padStart(9)} ${String(page.theirsTokens).padStart(11)} ${formatRatio(page.ratio).padStart(6)} ${page.interactiveCovered.toFixed(2).padStart(8)} ${`${page.oursReachCalls}/${page.oursReachTokens}`.padStart(18)} ${`${page.oursClickP50Ms}/${page.theirsClickP50Ms}/${page.theirsNoSettleClickP50Ms}`.padStart(31)} ${`${page.oursClickTokens}/${page.theirsClickTokens}`.padStart(22)}`,
      ),
      `ratio ${formatRatio(ratio)} (${oursTokens} / ${theirsTokens} tokens; worst page ${formatRatio(worstPageRatio)})`,
      `latencyRatio ${formatRatio(latencyRatio)} (sum of per-page click p50: ${oursClickMs.toFixed(0)} ms / ${theirsClickMs.toFixed(0)} ms)`,
      `latencyRatioNoSettle ${formatRatio(latencyRatioNoSettle)} (theirs with --timeout-settle 0: ${theirsNoSettleClickMs.toFixed(0)} ms; not a target)`,
      `interactiveCovered ${interactiveCovered.toFixed(4)} of ${interactive} elements (theirs in one snapshot: ${theirsInteractiveCovered.toFixed(4)})`,
      docsNote,
      'prose page                  ours first  theirs  read all (calls/tok)  readAll ratio  text alone',
      ...prosePages.map(
        (page) =>
          `${`${page.page}${page.real ? '' : ' (generated)'}`.padEnd(27)} ${String(page.oursFirstTokens).padStart(10)} ${String(page.theirsTokens).padStart(7)} ${`${page.readAllCalls}/${page.readAllTokens}`.padStart(21)} ${formatRatio(page.readAllRatio).padStart(14)} ${formatRatio(page.textOnlyRatio).padStart(11)}`,
      ),
      `readAllRatio ${formatRatio(readAllRatio)} (worst ${realProse.length > 0 ? 'real' : 'generated'} prose page; all prose pages: ${readAllTokens} / ${proseTheirsTokens} tokens = ${formatRatio(readAllRatioTotal)})${generatedDocs && realProse.length > 0 ? `; generated docs page ${formatRatio(generatedDocs.readAllRatio)}, its text alone ${formatRatio(generatedDocs.textOnlyRatio)}` : ''}`,
      `budgetOverrun ${budgetOverrun.toFixed(3)} (worst of ${checks.length} results: ${worstCheck.what} on ${worstCheck.page}, ${worstCheck.tokens} tokens / budget ${worstCheck.budget})`,
    ],
    json: {
      ratio: round(ratio, 4),
      latencyRatio: round(latencyRatio, 4),
      interactiveCovered: round(interactiveCovered, 4),
      worstPageRatio: round(worstPageRatio, 4),
      theirsInteractiveCovered: round(theirsInteractiveCovered, 4),
      oursTokens,
      theirsTokens,
      oursClickMs: round(oursClickMs, 1),
      theirsClickMs: round(theirsClickMs, 1),
      latencyRatioNoSettle: round(latencyRatioNoSettle, 4),
      theirsNoSettleClickMs: round(theirsNoSettleClickMs, 1),
      interactive,
      rounds,
      readAllRatio: round(readAllRatio, 4),
      readAllRatioJudgedOn: realProse.length > 0 ? 'real pages' : 'generated docs page',
      readAllRatioGenerated: generatedDocs ? round(generatedDocs.readAllRatio, 4) : null,
      textOnlyRatioGenerated: generatedDocs ? round(generatedDocs.textOnlyRatio, 4) : null,
      readAllRatioTotal: round(readAllRatioTotal, 4),
      budgetOverrun: round(budgetOverrun, 4),
      budgetOverrunAt: worstCheck,
      budgetChecks: checks.length,
      realPages: docsInstalled ? docPages : `skipped: ${PYTHON_DOCS} is missing`,
      skippedPages,
      tokenizer: 'gpt-tokenizer o200k_base',
      pages: perPage,
      prosePages,
    },
  };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
