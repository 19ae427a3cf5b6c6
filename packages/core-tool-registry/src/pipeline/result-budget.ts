import type { ToolResult } from '../contract/tool-result.js';

/**
 * The most characters one successful result carries, its text and its structured data (counted as
 * JSON) together: 200,000. Whatever a tool returns (a local tool, a remote MCP server, a plugin)
 * is cut to it by the executor, with a note saying what was cut and what to do instead.
 */
export const MAX_RESULT_CHARS = 200_000;

/** Structured data nested deeper than this is cut: no reader needs it, and walks stay shallow. */
const MAX_DATA_DEPTH = 64;

/** How far past its budget trimmed data may go to keep object keys (the data's shape). */
const MAX_OVERSHOOT = 4_096;

/** Room kept for the note appended to a cut text. */
const NOTE_ROOM = 400;

/** Options of {@link limitResult}. */
export interface LimitResultOptions {
  /** The budget in characters. Default {@link MAX_RESULT_CHARS}. */
  readonly maxChars?: number;
}

/**
 * Holds a successful result within one budget for its text and its structured data together.
 * A result within it is returned as it is (the same object). Otherwise the text keeps its start
 * and ends with a note naming what was cut and the next step; the data keeps its shape (every
 * object key, each value's type) with long strings shortened and arrays cut to what fits, so that
 * it still matches the tool's output schema. Failures are returned as they are (their messages
 * are bounded where they are made).
 */
export function limitResult(result: ToolResult, options: LimitResultOptions = {}): ToolResult {
  if (!result.ok) return result;
  const maxChars = options.maxChars ?? MAX_RESULT_CHARS;
  const { content, data } = result;
  if (data === undefined && content.length <= maxChars) return result;
  const dataChars = data === undefined ? 0 : measureJson(data, maxChars + 1);
  if (content.length + dataChars <= maxChars) return result;

  // Text first (it is what the model reads), but never less than half the budget for the data
  // when both are large.
  const textLimit = dataChars === 0 ? maxChars : Math.max(maxChars - dataChars, maxChars / 2);
  const textCut = content.length > textLimit;
  const keptText = textCut ? cutText(content, Math.max(0, textLimit - NOTE_ROOM)) : content;
  const dataLimit = maxChars - keptText.length - NOTE_ROOM;
  const dataCut = data !== undefined && dataChars > dataLimit;
  const keptData = dataCut ? trimJson(data, Math.max(0, dataLimit)) : data;
  const cut = [
    textCut ? `${content.length.toLocaleString('en-US')} characters of text` : '',
    dataCut
      ? `structured data of ${dataChars > maxChars ? 'more than ' : ''}${Math.min(dataChars, maxChars).toLocaleString('en-US')} characters`
      : '',
  ]
    .filter(Boolean)
    .join(' and ');
  const note = `\n\n[Result cut: the tool returned ${cut}; one result holds at most ${maxChars.toLocaleString('en-US')} characters, so the rest is not shown. Next: ask for less (a filter, a smaller range or page, a lower limit), or have the output written to a file and read it in parts.]`;
  return {
    ...result,
    content: `${keptText}${note}`,
    ...(keptData === undefined ? {} : { data: keptData }),
  };
}

/** The first `limit` characters of `text`, never ending inside a surrogate pair. */
function cutText(text: string, limit: number): string {
  let end = Math.min(limit, text.length);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/**
 * The length of `value` as JSON, counted without building the JSON; stops counting once past
 * `stopAt` (and then returns a number above it). Too deep a value counts as over.
 */
export function measureJson(value: unknown, stopAt: number): number {
  let total = 0;
  const visit = (node: unknown, depth: number): void => {
    if (total > stopAt) return;
    if (depth > MAX_DATA_DEPTH) {
      total = stopAt + 1;
      return;
    }
    if (typeof node === 'string') {
      total += node.length + 2;
      return;
    }
    if (typeof node !== 'object' || node === null) {
      // Numbers, booleans and null; undefined and functions vanish from JSON but count a little.
      total += typeof node === 'number' ? String(node).length : 5;
      return;
    }
    if (Array.isArray(node)) {
      total += 2;
      for (const item of node) {
        visit(item, depth + 1);
        total += 1;
        if (total > stopAt) return;
      }
      return;
    }
    total += 2;
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      total += key.length + 4;
      visit((node as Record<string, unknown>)[key], depth + 1);
      if (total > stopAt) return;
    }
  };
  visit(value, 0);
  return total;
}

/**
 * A copy of `value` of about `budget` JSON characters at most: strings shortened (ending in `…`),
 * arrays cut to the items that fit, every object key kept with a value of the same type.
 */
function trimJson(value: unknown, budget: number): unknown {
  let left = budget;
  const trim = (node: unknown, depth: number): unknown => {
    if (typeof node === 'string') {
      const room = Math.max(0, left - 2);
      left -= 2;
      if (node.length <= room) {
        left -= node.length;
        return node;
      }
      left -= room;
      return room === 0 ? '' : `${cutText(node, Math.max(0, room - 1))}…`;
    }
    if (typeof node !== 'object' || node === null) {
      left -= typeof node === 'number' ? String(node).length : 5;
      return node;
    }
    if (depth >= MAX_DATA_DEPTH) return Array.isArray(node) ? [] : {};
    if (Array.isArray(node)) {
      left -= 2;
      const kept: unknown[] = [];
      for (const item of node) {
        if (left <= 0) break;
        kept.push(trim(item, depth + 1));
        left -= 1;
      }
      return kept;
    }
    left -= 2;
    const kept: Record<string, unknown> = {};
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      // Keys are kept for the shape, but not without end (an object of a million keys).
      if (left < -MAX_OVERSHOOT) break;
      left -= key.length + 4;
      kept[key] = trim((node as Record<string, unknown>)[key], depth + 1);
    }
    return kept;
  };
  return trim(value, 0);
}
