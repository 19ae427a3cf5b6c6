import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import { createBaseConvertTools } from './base-convert.js';
import { createCronNextTools } from './cron-next.js';
import { createCsvQueryTools } from './csv-query.js';
import { createDatetimeTools } from './datetime.js';
import { createDurationConvertTools } from './duration-convert.js';
import { createFileHashTools } from './file-hash.js';
import { createJsonPathTools } from './json-path.js';
import { createRandomTools } from './random-tools.js';
import { createRegexTools } from './regex-tools.js';
import { createStringDistanceTools } from './string-distance.js';
import { createTextDiffTools } from './text-diff.js';
import { createUnitConvertTools } from './unit-convert.js';
import { createXmlExtractTools } from './xml-extract.js';

/** Options for {@link createStructuredTools}. */
export interface StructuredToolsOptions {
  /** Directory `file_hash` reads are confined to. */
  workspaceRoot: string;
  /**
   * Hard limit, in ms, on the matching work of one regex_extract, regex_replace, json_path,
   * xml_extract or csv_query call (RE2 is linear in the text, but huge counted repetitions over
   * megabytes are still slow); the call ends with TIMEOUT. Default 5000.
   */
  matchTimeLimitMs?: number;
  /** Time after which text_diff gives up on two very different texts, in ms. Default 5000. */
  diffTimeLimitMs?: number;
}

/**
 * The fifteen offline structured tools (category `data`, LOW risk, read-only): regex_extract,
 * regex_replace, text_diff, json_path, xml_extract, csv_query, base_convert, unit_convert,
 * duration_convert, string_distance, random_generate, uuid_generate, file_hash, datetime and
 * cron_next. Creating them touches nothing: heavy libraries initialise on first call.
 */
export function createStructuredTools(options: StructuredToolsOptions): AnyToolDefinition[] {
  const limits = { matchTimeLimitMs: options.matchTimeLimitMs };
  return [
    ...createRegexTools(limits),
    ...createTextDiffTools({ diffTimeLimitMs: options.diffTimeLimitMs }),
    ...createJsonPathTools(limits),
    ...createXmlExtractTools(limits),
    ...createCsvQueryTools(limits),
    ...createBaseConvertTools(),
    ...createUnitConvertTools(),
    ...createDurationConvertTools(),
    ...createStringDistanceTools(),
    ...createRandomTools(),
    ...createFileHashTools({ workspaceRoot: options.workspaceRoot }),
    ...createDatetimeTools(),
    ...createCronNextTools(),
  ];
}
