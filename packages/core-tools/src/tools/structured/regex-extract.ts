// `regex_extract`: matches of a linear-time (RE2) pattern, with groups and positions.
import {
  type AnyToolDefinition,
  invalidArgument,
  successResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { compileLinearRegex, LINEAR_REGEX_LIMITS } from '@toolsys/platform';
import { z } from 'zod';
import { MAX_TEXT_LENGTH, patternFields } from './regex-fields.js';
import { runWithTimeLimit } from './run-with-time-limit.js';
import { defineStructuredTool } from './shared.js';

const MAX_RENDERED_MATCHES = 50;

const regexExtractSchema = ToolSchema.object({
  text: z.string().max(MAX_TEXT_LENGTH).describe('Text to search.'),
  ...patternFields,
  group: z
    .union([z.number().int().min(0), z.string().min(1)])
    .optional()
    .describe('Only this group.'),
  maxMatches: z.number().int().min(1).max(100_000).default(1_000).describe('Most matches.'),
});

const matchSchema = z.object({
  match: z.string().nullable(),
  index: z.number(),
  groups: z.array(z.string().nullable()),
  named: z.record(z.string(), z.string().nullable()).optional(),
});

type ExtractedMatch = z.infer<typeof matchSchema>;

/** The `regex_extract` tool, ending a call after `timeLimitMs` of matching. */
export function createRegexExtractTool(timeLimitMs: number): AnyToolDefinition {
  return defineStructuredTool({
    id: 'regex_extract',
    description: `Returns every regex match in a text with position and groups. ${LINEAR_REGEX_LIMITS}`,
    inputSchema: regexExtractSchema,
    outputSchema: ToolSchema.object({
      count: z.number(),
      truncated: z.boolean(),
      matches: z.array(matchSchema),
    }),
    tags: ['regex', 'text'],
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
