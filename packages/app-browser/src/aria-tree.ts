import type { HiddenTextMarker } from './hidden-text.js';
import { NO_PAUSE, Pace, runSteps, runStepsAsync, type Steps } from './pace.js';
import { cleanPageText } from './page-text.js';

/**
 * One node of a page's accessibility tree as the browser tools show it: Playwright's aria snapshot
 * (mode `ai`) normalised, with decorative and hidden nodes left out and refs renamed to the tools'
 * own stable refs.
 */
export interface AriaNode {
  /** ARIA role (`button`, `link`, `row` …); `text` for a bare text run. */
  readonly role: string;
  /** Accessible name, when it has one. */
  readonly name?: string;
  /** The stable ref the model passes to action tools (`e12`), when the element is addressable. */
  readonly ref?: string;
  /** State and properties shown in brackets: `checked`, `disabled`, `level=2`, `url=/x` … */
  readonly attributes: readonly string[];
  /** Text content shown after the colon (a paragraph's text, an input's value). */
  readonly text?: string;
  /** Child nodes, in document order. */
  readonly children: readonly AriaNode[];
}

/** Roles a model acts on; an element with one of them (or a pointer cursor) is interactive. */
export const INTERACTIVE_ROLES: ReadonlySet<string> = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'checkbox',
  'radio',
  'switch',
  'combobox',
  'listbox',
  'option',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'tab',
  'slider',
  'spinbutton',
  'treeitem',
]);

/** Whether a node is something a model can act on. */
export function isInteractive(node: AriaNode): boolean {
  return INTERACTIVE_ROLES.has(node.role) || node.attributes.includes('cursor=pointer');
}

/** Maps Playwright's own refs to the tools' stable refs; returns undefined to drop a ref. */
export type RefRenamer = (playwrightRef: string) => string | undefined;

const STRUCTURAL_KEYS = new Set(['role', 'name', 'ref', 'children', 'text', 'ariaHidden', 'box']);
const ATTRIBUTE_ORDER = [
  'checked',
  'disabled',
  'expanded',
  'pressed',
  'selected',
  'level',
  'url',
  'cursor',
  'active',
];
const ATTRIBUTE_ORDER_SET: ReadonlySet<string> = new Set(ATTRIBUTE_ORDER);
/** Roles with no meaning of their own: unnamed ones are replaced by their children. */
const TRANSPARENT_ROLES = new Set(['generic', 'none', 'presentation', 'group', 'rowgroup']);

/** Options for {@link normaliseAriaJson}. */
export interface NormaliseAriaOptions {
  /** Secret values replaced by `[redacted]` in every text, before anything is searched or cut. */
  readonly secrets?: readonly string[];
  /**
   * Flags the page's text a person cannot see (`[hidden: …]`) in names and text runs, after
   * cleaning; see `hiddenTextMarker`.
   */
  readonly markHidden?: HiddenTextMarker;
}

/**
 * Normalises the JSON of `ariaSnapshotJSON({ mode: 'ai' })` into {@link AriaNode}s: drops
 * `aria-hidden` subtrees and unnamed images, flattens unnamed wrappers that nobody can click,
 * and renames refs through `rename`. Every text (names, text runs, attribute values) is cleaned
 * as page text (see `cleanPageText`): invisible and control characters removed, secrets
 * redacted, so what is searched, compared and cut is what the model is shown.
 */
export function normaliseAriaJson(
  value: unknown,
  rename: RefRenamer,
  options: NormaliseAriaOptions = {},
): AriaNode[] {
  return runSteps(normaliseSteps(value, rename, options, NO_PAUSE));
}

/**
 * {@link normaliseAriaJson} in slices that give the event loop a turn (a page of 200,000 nodes
 * holds no other session); stops with the signal's reason once it is aborted.
 */
export function normaliseAriaJsonAsync(
  value: unknown,
  rename: RefRenamer,
  options: NormaliseAriaOptions = {},
  signal?: AbortSignal,
): Promise<AriaNode[]> {
  const pace = new Pace();
  return runStepsAsync(normaliseSteps(value, rename, options, pace), pace, signal);
}

function* normaliseSteps(
  value: unknown,
  rename: RefRenamer,
  options: NormaliseAriaOptions,
  pace: Pace,
): Steps<AriaNode[]> {
  const secrets = options.secrets ?? [];
  const mark = options.markHidden;
  const cleanValue = (text: string) => cleanPageText(text, secrets);
  const clean: Clean =
    mark === undefined ? cleanValue : (text) => mark(cleanPageText(text, secrets));
  const roots: AriaNode[] = [];
  for (const entry of Array.isArray(value) ? value : [value]) {
    yield* normaliseEntry(entry, rename, { text: clean, value: cleanValue, pace }, roots);
  }
  return dropLabelEchoes(roots);
}

type Clean = (text: string) => string;

/** How texts (names, text runs: hidden text flagged) and attribute values are cleaned. */
interface Cleaners {
  readonly text: Clean;
  readonly value: Clean;
  /** When the work gives the event loop a turn. */
  readonly pace: Pace;
}

type MutableNode = { -readonly [K in keyof AriaNode]: AriaNode[K] };

/** Appends the nodes an entry becomes (none, itself, or its children) to `into`. */
function* normaliseEntry(
  entry: unknown,
  rename: RefRenamer,
  cleaners: Cleaners,
  into: AriaNode[],
): Steps<void> {
  if (cleaners.pace.due()) yield;
  const clean = cleaners.text;
  if (typeof entry === 'string') {
    const text = clean(entry);
    if (text !== '') into.push({ role: 'text', text, attributes: [], children: [] });
    return;
  }
  if (typeof entry !== 'object' || entry === null) return;
  const raw = entry as Record<string, unknown>;
  if (raw.ariaHidden === true) return;
  const role = typeof raw.role === 'string' ? raw.role : 'generic';
  const name = typeof raw.name === 'string' ? clean(raw.name) : '';
  // An image without a name is decorative.
  if ((role === 'img' || role === 'image') && name === '') return;
  let children: AriaNode[] = [];
  if (Array.isArray(raw.children)) {
    for (const child of raw.children) yield* normaliseEntry(child, rename, cleaners, children);
    children = dropLabelEchoes(children);
  }
  const attributes = readAttributes(raw, cleaners.value);
  const text = typeof raw.text === 'string' ? clean(raw.text) : '';
  if (TRANSPARENT_ROLES.has(role) && name === '' && !attributes.includes('cursor=pointer')) {
    if (text !== '') into.push({ role: 'text', text, attributes: [], children: [] });
    for (const child of children) into.push(child);
    return;
  }
  const node: MutableNode = { role, attributes, children };
  if (name !== '') node.name = name;
  const ref = typeof raw.ref === 'string' ? rename(raw.ref) : undefined;
  if (ref !== undefined) node.ref = ref;
  if (text !== '') node.text = text;
  into.push(node);
}

/** A label's text beside the control it names repeats the control's name: keep the control only. */
function dropLabelEchoes(nodes: AriaNode[]): AriaNode[] {
  if (!nodes.some((node) => node.role === 'text')) return nodes;
  return nodes.filter((node, index) => {
    if (node.role !== 'text' || node.text === undefined) return true;
    const before = nodes[index - 1];
    const after = nodes[index + 1];
    return before?.name !== node.text && after?.name !== node.text;
  });
}

function readAttributes(raw: Record<string, unknown>, clean: Clean): string[] {
  const attributes: string[] = [];
  const others: string[] = [];
  for (const key of ATTRIBUTE_ORDER) {
    if (key in raw) pushAttribute(attributes, key, raw[key], clean);
  }
  for (const key in raw) {
    if (!STRUCTURAL_KEYS.has(key) && !ATTRIBUTE_ORDER_SET.has(key)) others.push(key);
  }
  for (const key of others.sort()) pushAttribute(attributes, key, raw[key], clean);
  return attributes;
}

/** Attribute values longer than this are shortened (a `url=` of a data: link can be megabytes). */
const MAX_ATTRIBUTE_LENGTH = 300;

function pushAttribute(attributes: string[], key: string, value: unknown, clean: Clean): void {
  if (key === 'active') return;
  if (value === true) attributes.push(key);
  else if (value === 'mixed') attributes.push(`${key}=mixed`);
  else if (typeof value === 'string' || typeof value === 'number') {
    const text = clean(String(value)).replace(/\]/g, ')');
    const shown =
      text.length > MAX_ATTRIBUTE_LENGTH
        ? `${text.slice(0, MAX_ATTRIBUTE_LENGTH - 40)}… (${text.length.toLocaleString('en-US')} chars)`
        : text;
    attributes.push(`${key}=${shown}`);
  }
}

/** A Playwright ref found in a raw `ariaSnapshotJSON` value, with its role. */
export interface PlaywrightRefEntry {
  ref: string;
  role: string;
  interactive: boolean;
}

/** Collects every Playwright ref in a raw `ariaSnapshotJSON` value, with its role and name. */
export function collectPlaywrightRefs(value: unknown): PlaywrightRefEntry[] {
  const into: PlaywrightRefEntry[] = [];
  runSteps(collectRefSteps(value, into, NO_PAUSE));
  return into;
}

/** {@link collectPlaywrightRefs} in slices that give the event loop a turn. */
export async function collectPlaywrightRefsAsync(
  value: unknown,
  signal?: AbortSignal,
): Promise<PlaywrightRefEntry[]> {
  const into: PlaywrightRefEntry[] = [];
  const pace = new Pace();
  await runStepsAsync(collectRefSteps(value, into, pace), pace, signal);
  return into;
}

function* collectRefSteps(value: unknown, into: PlaywrightRefEntry[], pace: Pace): Steps<void> {
  if (pace.due()) yield;
  if (Array.isArray(value)) {
    for (const entry of value) yield* collectRefSteps(entry, into, pace);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const raw = value as Record<string, unknown>;
  if (raw.ariaHidden === true) return;
  if (typeof raw.ref === 'string') {
    const role = typeof raw.role === 'string' ? raw.role : 'generic';
    into.push({
      ref: raw.ref,
      role,
      interactive: INTERACTIVE_ROLES.has(role) || raw.cursor === 'pointer',
    });
  }
  if (Array.isArray(raw.children)) yield* collectRefSteps(raw.children, into, pace);
}
