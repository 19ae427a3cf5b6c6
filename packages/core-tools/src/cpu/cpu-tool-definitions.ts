// The core tools that run in the CPU tool pool: the module its workers import (`loadCpuTool`),
// the ids the pool takes and the calls cheap enough to stay on the calling thread.
import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import { createWebPageTask, WEB_PAGE_TASK_ID } from '../tools/network/web-page-text.js';
import { createJsonTransformTools } from '../tools/orchestration/json-transform.js';
import { createCsvQueryTools } from '../tools/structured/csv-query.js';
import { createJsonPathTools } from '../tools/structured/json-path.js';
import { createRegexTools } from '../tools/structured/regex-tools.js';
import { createStringDistanceTools } from '../tools/structured/string-distance.js';
import { createTextDiffTools } from '../tools/structured/text-diff.js';
import { createUnitConvertTools } from '../tools/structured/unit-convert.js';
import { createXmlExtractTools } from '../tools/structured/xml-extract.js';
import { createUtilityTools } from '../tools/utilities/index.js';

/**
 * How a worker builds each CPU-bound tool, with its default limits. The definitions are the
 * in-process ones, so a tool gives the same result and text in a worker as on the calling thread.
 * Static imports: a worker running from the TypeScript sources has a loader for those only.
 */
const LOADERS: Readonly<Record<string, () => AnyToolDefinition[]>> = {
  calculate: () => createUtilityTools(),
  text_transform: () => createUtilityTools(),
  regex_extract: () => createRegexTools(),
  regex_replace: () => createRegexTools(),
  text_diff: () => createTextDiffTools(),
  json_path: () => createJsonPathTools(),
  json_transform: () => createJsonTransformTools(),
  xml_extract: () => createXmlExtractTools(),
  csv_query: () => createCsvQueryTools(),
  unit_convert: () => createUnitConvertTools(),
  string_distance: () => createStringDistanceTools(),
};

/**
 * The core tools whose work is pure computation on their arguments, so a crafted input can keep a
 * CPU busy for long (a runaway recursion in calculate, a huge table, a deep document): they run in
 * the CPU tool pool, never on the event loop. Each reads only its arguments and returns a
 * serialisable result, which is what lets it run in another thread unchanged.
 */
export const CPU_TOOL_IDS: readonly string[] = Object.keys(LOADERS);

/** Longest `text_transform` input run on the calling thread, in characters (8 Ki). */
export const INLINE_TEXT_TRANSFORM_CHARS = 8_192;

/**
 * Calls cheap enough to run on the calling thread: every `text_transform` operation is a single
 * linear pass with fixed patterns: on 8 Ki characters the slowest (snake case) takes about a
 * millisecond, no more than the hop to a worker and far less than a cold worker's start. Longer texts, and every
 * other CPU tool, go to the pool.
 */
const INLINE_WHEN: Readonly<Record<string, (args: Record<string, unknown>) => boolean>> = {
  text_transform: (args) =>
    typeof args.text === 'string' && args.text.length <= INLINE_TEXT_TRANSFORM_CHARS,
};

/** Whether a call of a {@link CPU_TOOL_IDS} tool is cheap enough to skip the pool. */
export function runsInline(toolId: string, args: Record<string, unknown>): boolean {
  const when = Object.hasOwn(INLINE_WHEN, toolId) ? INLINE_WHEN[toolId] : undefined;
  return when?.(args) ?? false;
}

/**
 * CPU-bound steps of tools that otherwise run on the calling thread (the HTML conversion of
 * `web_fetch`): never registered, sent to the pool by their tool with `pool.run(id, …)`.
 */
const TASK_LOADERS: Readonly<Record<string, () => AnyToolDefinition[]>> = {
  [WEB_PAGE_TASK_ID]: () => [createWebPageTask()],
};

/**
 * Builds the in-process definition of one {@link CPU_TOOL_IDS} tool or internal task; undefined
 * for other ids.
 */
export function loadCpuTool(toolId: string): AnyToolDefinition | undefined {
  const load = Object.hasOwn(LOADERS, toolId)
    ? LOADERS[toolId]
    : Object.hasOwn(TASK_LOADERS, toolId)
      ? TASK_LOADERS[toolId]
      : undefined;
  return load?.().find((tool) => tool.id === toolId);
}
