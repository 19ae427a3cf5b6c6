import type { RegisteredTool } from '../contract/tool.js';
import { TOOL_CATEGORIES } from '../contract/tool-metadata.js';

/** Options for {@link renderCatalog}. */
export interface CatalogOptions {
  /** Longest description kept per tool (first sentence, cut at a word only past this). Default 100. */
  maxDescriptionLength?: number;
}

/**
 * Renders tools for a system prompt: grouped by category in a fixed order, one compact line per
 * tool (id, risk when above LOW, first sentence of the description), ids sorted within a group.
 */
export function renderCatalog(
  tools: Iterable<RegisteredTool>,
  options: CatalogOptions = {},
): string {
  const max = options.maxDescriptionLength ?? 100;
  const byCategory = new Map<string, RegisteredTool[]>();
  for (const tool of tools) {
    const list = byCategory.get(tool.metadata.category) ?? [];
    list.push(tool);
    byCategory.set(tool.metadata.category, list);
  }
  const sections: string[] = [];
  for (const category of TOOL_CATEGORIES) {
    const list = byCategory.get(category);
    if (!list?.length) continue;
    list.sort((a, b) => a.id.localeCompare(b.id));
    const lines = list.map((tool) => {
      const flags = [
        tool.metadata.risk === 'LOW' ? undefined : tool.metadata.risk,
        tool.metadata.annotations.readOnlyHint ? 'read-only' : undefined,
      ].filter(Boolean);
      const suffix = flags.length ? ` [${flags.join(', ')}]` : '';
      return `- ${tool.id}${suffix}: ${firstSentence(tool.description, max)}`;
    });
    sections.push(`${category}:\n${lines.join('\n')}`);
  }
  return sections.join('\n\n');
}

/** Abbreviations whose period never ends a sentence. */
const NEVER_END = /(?:^|[\s(/])(?:e\.g|i\.e|cf|vs|approx|incl|a\.k\.a|resp)\.$/i;
/** Abbreviations whose period ends a sentence only before a capital letter. */
const MAY_END = /(?:^|[\s(/])(?:etc|no|max|min|ca)\.$/i;

/** Splits a text into sentences, keeping abbreviations such as "e.g." inside their sentence. */
export function splitSentences(text: string): string[] {
  const flat = text.replace(/\s+/g, ' ').trim();
  const sentences: string[] = [];
  let start = 0;
  for (const match of flat.matchAll(/[.!?](?= |$)/g)) {
    const end = match.index + 1;
    const head = flat.slice(start, end);
    const next = flat.charAt(end + 1);
    if (NEVER_END.test(head)) continue;
    if (MAY_END.test(head) && next !== '' && next === next.toLowerCase()) continue;
    sentences.push(head.trim());
    start = end;
  }
  const rest = flat.slice(start).trim();
  if (rest) sentences.push(rest);
  return sentences;
}

/**
 * The first whole sentence of a text ("e.g." and similar never end it). Only a sentence longer than
 * `max` (default: no limit) is cut, at a word boundary, with "…".
 */
export function firstSentence(text: string, max = Number.POSITIVE_INFINITY): string {
  const sentence = splitSentences(text)[0] ?? '';
  if (sentence.length <= max) return sentence;
  const cut = sentence.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

/** A token that reads as a tool id: `snake_case` with an underscore, or a dotted `demo.wait`. */
const TOOL_ID_TOKEN = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z]{3,}(?:\.[a-z_]{2,})+\b/g;
/** A sentence that points the model at another tool. */
const POINTER = /\b(?:use|prefer|see|try|call|instead|rather than)\b/i;

/**
 * Drops from a description the sentences that point at a tool the deployment does not have, so a
 * model is never sent to a tool of a package the deployment did not load. Only sentences that
 * recommend (use, prefer, see, instead…) and name an id-shaped token that `isTool` rejects go.
 */
export function pruneToolPointers(description: string, isTool: (id: string) => boolean): string {
  const sentences = splitSentences(description);
  const kept = sentences.filter((sentence) => {
    if (!POINTER.test(sentence)) return true;
    const unknown = [...sentence.matchAll(TOOL_ID_TOKEN)]
      .map((match) => match[0])
      .filter((token) => !isTool(token));
    return unknown.length === 0 || !unknown.some(looksLikeToolReference);
  });
  return kept.length === sentences.length ? description : kept.join(' ');
}

/** File names (`toolsys.config.json`) and dotted paths with an extension are not tool ids. */
function looksLikeToolReference(token: string): boolean {
  return !/\.(?:json|jsonl|js|ts|md|txt|csv|xml|yaml|yml|png|html|db)$/.test(token);
}
