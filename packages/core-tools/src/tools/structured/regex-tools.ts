import {
  type AnyToolDefinition,
  defineTool,
  invalidArgument,
  RunPolicies,
  successResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { compileLinearRegex, LINEAR_REGEX_LIMITS } from '@toolsys/platform';
import { z } from 'zod';
import { DEFAULT_MATCH_TIME_LIMIT_MS, runWithTimeLimit } from './run-with-time-limit.js';
import { structuredMetadata } from './structured-metadata.js';

const MAX_TEXT_LENGTH = 5_000_000;
const MAX_PATTERN_LENGTH = 5_000;
const MAX_OUTPUT_LENGTH = 10_000_000;
const MAX_RENDERED_MATCHES = 50;

const patternFields = {
  pattern: z
    .string()
    .min(1)
    .max(MAX_PATTERN_LENGTH)
    .describe(
      'Regular expression in JavaScript syntax without slashes, e.g. "(?<year>\\\\d{4})-(\\\\d{2})". No backreferences or lookahead.',
    ),
  ignoreCase: z.boolean().default(false).describe('Case-insensitive matching (the i flag).'),
  multiline: z
    .boolean()
    .default(false)
    .describe('^ and $ match at every line break, not only at the ends (the m flag).'),
  dotAll: z.boolean().default(false).describe('. also matches line breaks (the s flag).'),
};

const regexExtractSchema = ToolSchema.object({
  text: z.string().max(MAX_TEXT_LENGTH).describe('The text to search (up to 5 MB).'),
  ...patternFields,
  group: z
    .union([z.number().int().min(0), z.string().min(1)])
    .optional()
    .describe(
      'Return only this capture group of each match: a number (0 = whole match) or a group name. Default: the whole match with all groups.',
    ),
  maxMatches: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(1_000)
    .describe('Stop after this many matches (1-100000).'),
});

const matchSchema = z.object({
  match: z.string().nullable(),
  index: z.number(),
  groups: z.array(z.string().nullable()),
  named: z.record(z.string(), z.string().nullable()).optional(),
});

type ExtractedMatch = z.infer<typeof matchSchema>;

function createRegexExtractTool(timeLimitMs: number): AnyToolDefinition {
  return defineTool({
    id: 'regex_extract',
    description: `Finds every match of a regular expression in a text and returns each match with its position and capture groups (numbered and named). Use it to pull emails, ids, dates or fields out of text; use regex_replace to edit text, search_files to search files. ${LINEAR_REGEX_LIMITS} Matching stops with TIMEOUT after ${timeLimitMs / 1000} s of CPU.`,
    inputSchema: regexExtractSchema,
    outputSchema: ToolSchema.object({
      count: z.number(),
      truncated: z.boolean(),
      matches: z.array(matchSchema),
    }),
    metadata: structuredMetadata(['regex', 'text']),
    runPolicy: RunPolicies.quickRead,
    execute(args) {
      const regex = compileLinearRegex(args.pattern, args);
      const named = regex.namedGroups();
      const hasNames = Object.keys(named).length > 0;
      if (args.group !== undefined) {
        const known =
          typeof args.group === 'number' ? args.group <= regex.groupCount() : args.group in named;
        if (!known) {
          throw invalidArgument(
            'group',
            `the pattern has no group ${JSON.stringify(args.group)} (it has ${regex.groupCount()} numbered group(s)${hasNames ? ` and names ${Object.keys(named).join(', ')}` : ''})`,
          );
        }
      }
      const matches: ExtractedMatch[] = [];
      let truncated = false;
      runWithTimeLimit(
        () => {
          for (const found of regex.matchAll(args.text)) {
            if (matches.length >= args.maxMatches) {
              truncated = true;
              break;
            }
            const groups = Array.from(found).map((value) => (value === undefined ? null : value));
            const whole = groups.shift() ?? '';
            const namedValues = hasNames ? toNamedValues(found.groups) : undefined;
            let match: string | null = whole;
            if (typeof args.group === 'number' && args.group > 0) {
              match = groups[args.group - 1] ?? null;
            } else if (typeof args.group === 'string') {
              match = namedValues?.[args.group] ?? null;
            }
            const entry: ExtractedMatch = { match, index: found.index ?? 0, groups };
            if (namedValues) entry.named = namedValues;
            matches.push(entry);
          }
        },
        timeLimitMs,
        'regex_extract',
      );
      const data = { count: matches.length, truncated, matches };
      return successResult(renderMatches(matches, truncated, args.maxMatches), { data });
    },
  });
}

function toNamedValues(
  groups: Record<string, string | undefined> | undefined,
): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(groups ?? {})) out[name] = value ?? null;
  return out;
}

function renderMatches(matches: ExtractedMatch[], truncated: boolean, limit: number): string {
  if (matches.length === 0) return 'No matches.';
  const lines = [
    `${matches.length} match${matches.length === 1 ? '' : 'es'}${truncated ? ` (stopped at maxMatches=${limit}; more exist)` : ''}:`,
  ];
  for (const entry of matches.slice(0, MAX_RENDERED_MATCHES)) {
    let line = `@${entry.index}: ${JSON.stringify(entry.match)}`;
    if (entry.named) line += ` ${JSON.stringify(entry.named)}`;
    else if (entry.groups.length > 0) line += ` groups ${JSON.stringify(entry.groups)}`;
    lines.push(line);
  }
  if (matches.length > MAX_RENDERED_MATCHES) {
    lines.push(`… ${matches.length - MAX_RENDERED_MATCHES} more in the structured data.`);
  }
  return lines.join('\n');
}

const regexReplaceSchema = ToolSchema.object({
  text: z.string().max(MAX_TEXT_LENGTH).describe('The text to edit (up to 5 MB).'),
  ...patternFields,
  replacement: z
    .string()
    .max(100_000)
    .describe(
      "Replacement text as in JavaScript String.replace: $1…$99 numbered groups, $<name> named groups, $& the match, $` text before, $' text after, $$ a literal $.",
    ),
  replaceAll: z
    .boolean()
    .default(true)
    .describe('Replace every match (default) or only the first one.'),
});

function createRegexReplaceTool(timeLimitMs: number): AnyToolDefinition {
  return defineTool({
    id: 'regex_replace',
    description: `Replaces matches of a regular expression in a text and returns the new text with the number of replacements. Use it for pattern-based rewriting of text you already have; use edit_file to change a file, text_transform for case or encoding changes. ${LINEAR_REGEX_LIMITS} Output is capped at 10 MB; matching stops with TIMEOUT after ${timeLimitMs / 1000} s of CPU.`,
    inputSchema: regexReplaceSchema,
    outputSchema: ToolSchema.object({ result: z.string(), replacements: z.number() }),
    metadata: structuredMetadata(['regex', 'text']),
    runPolicy: RunPolicies.quickRead,
    execute(args) {
      const regex = compileLinearRegex(args.pattern, args);
      const groupCount = regex.groupCount();
      const hasNames = Object.keys(regex.namedGroups()).length > 0;
      const pieces: string[] = [];
      let length = 0;
      let cursor = 0;
      let replacements = 0;
      runWithTimeLimit(
        () => {
          for (const found of regex.matchAll(args.text)) {
            const index = found.index ?? 0;
            const whole = found[0] ?? '';
            const expanded = expandReplacement(args.replacement, {
              match: whole,
              index,
              input: args.text,
              groups: Array.from(found).slice(1, groupCount + 1),
              named: hasNames ? (found.groups ?? {}) : undefined,
            });
            const before = args.text.slice(cursor, index);
            length += before.length + expanded.length;
            if (length > MAX_OUTPUT_LENGTH) {
              throw invalidArgument(
                'replacement',
                `the result would exceed ${MAX_OUTPUT_LENGTH} characters`,
                'Use a shorter replacement or a narrower pattern, or split the text and retry.',
              );
            }
            pieces.push(before, expanded);
            cursor = index + whole.length;
            replacements++;
            if (!args.replaceAll) break;
          }
        },
        timeLimitMs,
        'regex_replace',
      );
      pieces.push(args.text.slice(cursor));
      const result = pieces.join('');
      return successResult(result, { data: { result, replacements } });
    },
  });
}

interface ReplacementMatch {
  match: string;
  index: number;
  input: string;
  groups: Array<string | undefined>;
  named: Record<string, string | undefined> | undefined;
}

/** Expands a replacement template exactly as ECMAScript GetSubstitution does. */
function expandReplacement(template: string, found: ReplacementMatch): string {
  if (!template.includes('$')) return template;
  let out = '';
  for (let index = 0; index < template.length; index++) {
    const char = template[index] as string;
    if (char !== '$' || index + 1 >= template.length) {
      out += char;
      continue;
    }
    const next = template[index + 1] as string;
    if (next === '$') {
      out += '$';
      index++;
    } else if (next === '&') {
      out += found.match;
      index++;
    } else if (next === '`') {
      out += found.input.slice(0, found.index);
      index++;
    } else if (next === "'") {
      out += found.input.slice(found.index + found.match.length);
      index++;
    } else if (next >= '0' && next <= '9') {
      const two = template.slice(index + 1, index + 3);
      const twoDigits = /^\d\d$/.test(two) ? Number(two) : 0;
      const oneDigit = Number(next);
      if (twoDigits >= 1 && twoDigits <= found.groups.length) {
        out += found.groups[twoDigits - 1] ?? '';
        index += 2;
      } else if (oneDigit >= 1 && oneDigit <= found.groups.length) {
        out += found.groups[oneDigit - 1] ?? '';
        index++;
      } else {
        out += char;
      }
    } else if (next === '<' && found.named !== undefined) {
      const close = template.indexOf('>', index + 2);
      if (close === -1) {
        out += char;
      } else {
        out += found.named[template.slice(index + 2, close)] ?? '';
        index = close;
      }
    } else {
      out += char;
    }
  }
  return out;
}

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
