import type { RegisteredTool } from './tool.js';
import { TOOL_CATEGORIES } from './tool-metadata.js';

/** Options for {@link renderCatalog}. */
export interface CatalogOptions {
  /** Longest description kept per tool (first sentence, then cut). Default 100. */
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

/** The first sentence of a text, cut to `max` characters. */
export function firstSentence(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.!?](\s|$)/);
  const sentence = end === -1 ? flat : flat.slice(0, end + 1);
  return sentence.length > max ? `${sentence.slice(0, max - 1)}…` : sentence;
}
