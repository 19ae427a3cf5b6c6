/**
 * How the browser bench reads a page through a peer: the interactive elements a page has, which of
 * them an output covers, everything our side lets the model reach, a whole page through the
 * cursor, and every budget tried on one page.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { call, type Peer } from './browser-peers.js';

/** Most browser_snapshot pages followed when walking our output through its cursor. */
const MAX_PAGES = 200;

/** Our default snapshot budget (the `app-browser` default) and the action delta budget. */
export const DEFAULT_BUDGET = 6_000;
export const DELTA_BUDGET = 1_500;
/** Budgets `budgetOverrun` tries on every page: first page and the page after it. */
const BUDGETS_TRIED = [500, 1_500, DEFAULT_BUDGET, 20_000];

/**
 * Runs in the page (through the peer's browser_evaluate): every visible interactive element and a
 * simple accessible name (aria-label, aria-labelledby, label, button value, text, placeholder).
 * The generated pages give each one a unique name this computes exactly.
 */
const INTERACTIVE_QUERY = `() => {
  const selector = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[role=button],[role=link],[role=checkbox],[role=radio],[role=switch],[role=tab],[role=menuitem],[role=textbox],[contenteditable=""],[contenteditable=true]';
  const clean = (text) => (text || '').replace(/\\s+/g, ' ').trim();
  const nameOf = (element) => {
    const label = element.getAttribute('aria-label');
    if (label) return clean(label);
    const by = element.getAttribute('aria-labelledby');
    if (by) return clean(by.split(/\\s+/).map((id) => document.getElementById(id)?.textContent ?? '').join(' '));
    if (element.labels && element.labels.length > 0) return clean(element.labels[0].textContent);
    if (element.tagName === 'INPUT' && (element.type === 'submit' || element.type === 'button')) return clean(element.value);
    return clean(element.textContent) || clean(element.getAttribute('placeholder')) || clean(element.title);
  };
  const found = [...document.querySelectorAll(selector)].filter((element) => element.checkVisibility());
  return 'BEGIN|' + found.map(nameOf).join('|') + '|END';
}`;

/** The visible interactive elements of the page open in `theirs`, by name. */
export async function interactiveNames(theirs: Peer): Promise<string[]> {
  const text = await call(theirs, 'browser_evaluate', { function: INTERACTIVE_QUERY });
  const match = /BEGIN\|(.*?)\|?END/s.exec(text);
  if (!match) throw new Error(`browser_evaluate gave no element list: ${text.slice(0, 300)}`);
  const names = (match[1] as string).split('|').filter((name) => name !== '');
  const duplicates = names.filter((name, index) => names.indexOf(name) !== index);
  if (duplicates.length > 0)
    throw new Error(`generated page has duplicate names: ${duplicates.slice(0, 5).join(', ')}`);
  return names;
}

/** Ref of the element named `name` on a snapshot line (`- button "name" [ref=e12]`). */
export function refOf(text: string, name: string): string | undefined {
  for (const line of text.split('\n')) {
    if (!line.includes(`"${name}"`)) continue;
    const match = /\[ref=([A-Za-z0-9_-]+)\]/.exec(line);
    if (match) return match[1];
  }
  return undefined;
}

/** An inline link or control of a prose line: `[label](e12)`, maybe with a URL after the ref. */
const INLINE_REF = /\[([^\]]*)\]\(((?:f\d+)?e\d+)(?=[ )])/g;

/**
 * Names (of `names`) that appear with a ref of their own, each with a distinct ref: on an element
 * line (`- button "name" [ref=e12]`) or as an inline link of a prose line (`[name](e12)`).
 */
export function coveredNames(text: string, names: readonly string[]): Set<string> {
  const byName = new Map<string, string>();
  const wanted = new Set(names);
  for (const line of text.split('\n')) {
    for (const match of line.matchAll(INLINE_REF)) {
      const name = match[1] as string;
      if (wanted.has(name) && !byName.has(name)) byName.set(name, match[2] as string);
    }
    const ref = /\[ref=([A-Za-z0-9_-]+)\]/.exec(line)?.[1];
    if (ref === undefined) continue;
    for (const match of line.matchAll(/"([^"]*)"/g)) {
      const name = match[1] as string;
      if (wanted.has(name) && !byName.has(name)) byName.set(name, ref);
    }
  }
  const refs = new Set(byName.values());
  if (refs.size !== byName.size) throw new Error('two elements share one ref in our output');
  return new Set(byName.keys());
}

/**
 * Everything of the current page our side lets the model reach with the default budget: the
 * default snapshot, then every repeated item (`expand: true`) page by page through the cursor.
 */
export async function reachableOutput(
  ours: Peer,
): Promise<{ text: string; calls: number; tokens: number }> {
  const parts: string[] = [];
  let calls = 0;
  for (const expand of [false, true]) {
    let cursor = 0;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const text = await call(ours, 'browser_snapshot', { expand, cursor });
      calls += 1;
      parts.push(text);
      const next = /Continue with browser_snapshot cursor: (\d+)/.exec(text);
      if (!next) break;
      const value = Number(next[1]);
      if (value <= cursor) throw new Error(`our cursor did not advance (${cursor} → ${value})`);
      cursor = value;
    }
  }
  const text = parts.join('\n');
  return { text, calls, tokens: countTokens(text) };
}

/** The cursor and page token of a cut marker (`… cursor: 120, page: 4f1c2a9b]`), if any. */
function nextPageOf(text: string): { cursor: number; page?: string } | undefined {
  const match = /Continue with browser_snapshot cursor: (\d+)(?:, page: ([0-9a-f]{8}))?/.exec(text);
  if (!match) return undefined;
  return { cursor: Number(match[1]), ...(match[2] === undefined ? {} : { page: match[2] }) };
}

/**
 * Reads the whole current page on our side: every node (`expand: true`), page by page through
 * the cursor with the default budget. Returns the text of each page.
 */
export async function readWholePage(ours: Peer): Promise<string[]> {
  const texts: string[] = [];
  let cursor = 0;
  let page: string | undefined;
  for (let index = 0; index < MAX_PAGES; index += 1) {
    const text = await call(ours, 'browser_snapshot', {
      expand: true,
      ...(cursor === 0 ? {} : { cursor, ...(page === undefined ? {} : { page }) }),
    });
    texts.push(text);
    const next = nextPageOf(text);
    if (next === undefined) return texts;
    if (next.cursor <= cursor)
      throw new Error(`our cursor did not advance (${cursor} → ${next.cursor})`);
    cursor = next.cursor;
    page = next.page;
  }
  throw new Error(`the page was not read whole in ${MAX_PAGES} pages`);
}

/** One result measured against the budget it was asked to hold. */
export interface BudgetCheck {
  readonly page: string;
  /** What was called: `snapshot 1500 p1`, `read-all p3`, `click` … */
  readonly what: string;
  readonly budget: number;
  readonly tokens: number;
}

/**
 * Every budget of {@link BUDGETS_TRIED} on the current page: the first page of a snapshot and,
 * when it was cut, the page after it; then a `find` with the smallest budget.
 */
export async function tryBudgets(ours: Peer, page: string, find: string): Promise<BudgetCheck[]> {
  const checks: BudgetCheck[] = [];
  for (const budget of BUDGETS_TRIED) {
    const first = await call(ours, 'browser_snapshot', { maxTokens: budget });
    checks.push({ page, what: `snapshot ${budget} p1`, budget, tokens: countTokens(first) });
    const next = nextPageOf(first);
    if (next === undefined) continue;
    const second = await call(ours, 'browser_snapshot', { maxTokens: budget, ...next });
    checks.push({ page, what: `snapshot ${budget} p2`, budget, tokens: countTokens(second) });
  }
  const budget = BUDGETS_TRIED[0] as number;
  const found = await call(ours, 'browser_snapshot', { find, maxTokens: budget });
  checks.push({ page, what: `find ${budget}`, budget, tokens: countTokens(found) });
  return checks;
}

/**
 * @playwright/mcp 0.0.83 writes the snapshot an action takes to a file and returns only its link
 * (`- [Snapshot](playwright-output/page-….yml)`); the model sees the result of its click only by
 * reading that file, so the bench reads it (the cheapest way, no second tool call) and counts it.
 */
export async function withLinkedSnapshot(text: string, workspace: string): Promise<string> {
  const link = /\[Snapshot\]\(([^)]+)\)/.exec(text)?.[1];
  if (link === undefined) return text;
  return `${text}\n${await readFile(resolve(workspace, link), 'utf8')}`;
}
