// The regex pair: builds regex_extract and regex_replace with one matching time limit.
import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import { createRegexExtractTool } from './regex-extract.js';
import { createRegexReplaceTool } from './regex-replace.js';
import { DEFAULT_MATCH_TIME_LIMIT_MS } from './run-with-time-limit.js';

/** Options for {@link createRegexTools}. */
export interface RegexToolsOptions {
  /** Hard limit on the matching time of one call, in ms; the call ends with TIMEOUT. Default 5000. */
  matchTimeLimitMs?: number;
}

/** `regex_extract` and `regex_replace`. */
export function createRegexTools(options: RegexToolsOptions = {}): AnyToolDefinition[] {
  const limit = options.matchTimeLimitMs ?? DEFAULT_MATCH_TIME_LIMIT_MS;
  return [createRegexExtractTool(limit), createRegexReplaceTool(limit)];
}
