import type { RegisteredTool } from '@toolsys/core-tool-registry';

/** Words written in capitals in a title made from an id. */
const ACRONYMS = new Set(['csv', 'json', 'http', 'xml', 'uuid', 'mcp', 'url', 'ui', 'id', 'api']);

/**
 * The title a tool is shown under: the one it declares, else one made from its id
 * (`terminal.ubuntu_install` → `Terminal ubuntu install`, `csv_query` → `CSV query`).
 */
export function toolTitle(tool: Pick<RegisteredTool, 'id' | 'title'>): string {
  if (tool.title !== undefined && tool.title.trim() !== '') return tool.title;
  const words = tool.id
    .split(/[._\-\s]+/)
    .filter((word) => word !== '')
    .map((word) => (ACRONYMS.has(word.toLowerCase()) ? word.toUpperCase() : word.toLowerCase()));
  const [first = tool.id, ...rest] = words;
  const head = ACRONYMS.has(first.toLowerCase()) ? first : first[0]?.toUpperCase() + first.slice(1);
  return [head, ...rest].join(' ');
}
