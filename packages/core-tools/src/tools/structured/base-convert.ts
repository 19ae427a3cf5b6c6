import {
  type AnyToolDefinition,
  invalidArgument,
  successResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { defineStructuredTool } from './shared.js';

const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';
const PREFIXES: Record<string, number> = { '0x': 16, '0b': 2, '0o': 8 };

const baseConvertSchema = ToolSchema.object({
  value: z.string().min(1).max(4_000).describe('Integer, e.g. "ff", "0x1F".'),
  from: z
    .number()
    .int()
    .min(2)
    .max(36)
    .optional()
    .describe('Source base; default by prefix, else 10.'),
  to: z.number().int().min(2).max(36).default(10).describe('Target base.'),
  uppercase: z.boolean().default(false).describe('Upper-case letter digits.'),
});

function createBaseConvertTool(): AnyToolDefinition {
  return defineStructuredTool({
    id: 'base_convert',
    description: 'Converts an integer of any size between bases 2-36.',
    inputSchema: baseConvertSchema,
    outputSchema: ToolSchema.object({
      result: z.string(),
      decimal: z.string(),
      from: z.number(),
      to: z.number(),
    }),
    tags: ['number', 'convert'],
    execute(args) {
      const { value: integer, base } = parseInteger(args.value, args.from);
      let result = integer.toString(args.to);
      if (args.uppercase) result = result.toUpperCase();
      const data = { result, decimal: integer.toString(10), from: base, to: args.to };
      return successResult(`${result} (base ${args.to})`, { data });
    },
  });
}

function parseInteger(raw: string, from: number | undefined): { value: bigint; base: number } {
  let text = raw.trim().replace(/[_\s]/g, '').toLowerCase();
  let negative = false;
  if (text.startsWith('-') || text.startsWith('+')) {
    negative = text.startsWith('-');
    text = text.slice(1);
  }
  let base = from ?? 10;
  const prefixBase = PREFIXES[text.slice(0, 2)];
  if (prefixBase !== undefined && (from === undefined || from === prefixBase)) {
    base = prefixBase;
    text = text.slice(2);
  }
  if (text === '') throw invalidArgument('value', 'no digits to convert');
  if (text.includes('.')) {
    throw invalidArgument(
      'value',
      'fractions are not supported',
      'Pass an integer, or use calculate.',
    );
  }
  let value = 0n;
  const bigBase = BigInt(base);
  for (const char of text) {
    const digit = DIGITS.indexOf(char);
    if (digit === -1 || digit >= base) {
      throw invalidArgument(
        'value',
        `"${char}" is not a digit in base ${base}`,
        `Use digits 0-${DIGITS[base - 1]} for base ${base}, or set "from" to the value's base.`,
      );
    }
    value = value * bigBase + BigInt(digit);
  }
  return { value: negative ? -value : value, base };
}

/** `base_convert`. */
export function createBaseConvertTools(): AnyToolDefinition[] {
  return [createBaseConvertTool()];
}
