import type { AnyToolDefinition } from '../tool.js';
import { createJsonTransformTools } from '../tools/orchestration.js';
import { createCsvQueryTools } from '../tools/structured/csv-query-tool.js';
import { createJsonPathTools } from '../tools/structured/json-path-tool.js';
import { createRegexTools } from '../tools/structured/regex-tools.js';
import { createStringDistanceTools } from '../tools/structured/string-distance-tool.js';
import { createTextDiffTools } from '../tools/structured/text-diff-tool.js';
import { createUnitConvertTools } from '../tools/structured/unit-convert-tool.js';
import { createXmlExtractTools } from '../tools/structured/xml-extract-tool.js';
import { createUtilityTools } from '../tools/utilities.js';

/**
 * The core tools whose work is pure computation on their arguments, so a crafted input can keep a
 * CPU busy for long (a runaway recursion in calculate, a huge table, a deep document): they run in
 * the CPU tool pool, never on the event loop. Each reads only its arguments and returns a
 * serialisable result, which is what lets it run in another thread unchanged.
 */
export const CPU_TOOL_IDS: readonly string[] = [
  'calculate',
  'text_transform',
  'regex_extract',
  'regex_replace',
  'text_diff',
  'json_path',
  'json_transform',
  'xml_extract',
  'csv_query',
  'unit_convert',
  'string_distance',
];

/**
 * Builds the in-process definitions of the {@link CPU_TOOL_IDS} tools with their default limits:
 * the worker runs these, so a tool gives the same result and text in a worker as in-process.
 */
export function createCpuToolDefinitions(): Map<string, AnyToolDefinition> {
  const tools = [
    ...createUtilityTools(),
    ...createRegexTools(),
    ...createTextDiffTools(),
    ...createJsonPathTools(),
    ...createXmlExtractTools(),
    ...createCsvQueryTools(),
    ...createUnitConvertTools(),
    ...createStringDistanceTools(),
    ...createJsonTransformTools(),
  ];
  const byId = new Map<string, AnyToolDefinition>();
  for (const tool of tools) if (CPU_TOOL_IDS.includes(tool.id)) byId.set(tool.id, tool);
  return byId;
}
