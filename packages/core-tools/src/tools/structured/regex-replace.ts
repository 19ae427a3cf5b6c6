// `regex_replace`: replaces matches of a linear-time (RE2) pattern with an ECMAScript template.
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

const MAX_OUTPUT_LENGTH = 10_000_000;

const regexReplaceSchema = ToolSchema.object({
  text: z.string().max(MAX_TEXT_LENGTH).describe('Text to edit.'),
  ...patternFields,
  replacement: z.string().max(100_000).describe('$1, $<name>, $& as in String.replace.'),
  replaceAll: z.boolean().default(true).describe('All matches, or the first.'),
});

/** The `regex_replace` tool, ending a call after `timeLimitMs` of matching. */
export function createRegexReplaceTool(timeLimitMs: number): AnyToolDefinition {
  return defineStructuredTool({
    id: 'regex_replace',
    description: `Replaces regex matches in a text; returns the text and the count. ${LINEAR_REGEX_LIMITS}`,
    inputSchema: regexReplaceSchema,
    outputSchema: ToolSchema.object({ result: z.string(), replacements: z.number() }),
    tags: ['regex', 'text'],
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
