// `random_generate`: integers, floats, choices, passwords and bytes from the system CSPRNG.
import { randomBytes, randomInt } from 'node:crypto';
import {
  type AnyToolDefinition,
  invalidArgument,
  successResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { defineStructuredTool } from './shared.js';

/** crypto.randomInt accepts ranges below 2^48. */
const MAX_INTEGER_RANGE = 2 ** 48 - 1;

const CHARSETS = {
  alphanumeric: ['abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', '0123456789'],
  alphanumeric_symbols: [
    'abcdefghijklmnopqrstuvwxyz',
    'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
    '0123456789',
    '!#$%&*+-=?@^_~',
  ],
  letters: ['abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'],
  digits: ['0123456789'],
  hex: ['0123456789abcdef'],
} as const;

type Charset = keyof typeof CHARSETS;

const KINDS = ['integer', 'float', 'choice', 'password', 'bytes'] as const;

const randomGenerateSchema = ToolSchema.object({
  kind: z.enum(KINDS).describe('Kind.'),
  count: z.number().int().min(1).max(1_000).default(1).describe('How many.'),
  min: z.number().finite().default(0).describe('Lower bound.'),
  max: z.number().finite().default(100).describe('Upper bound (inclusive for integer).'),
  unique: z.boolean().default(false).describe('No repeats.'),
  choices: z.array(z.string()).min(1).max(10_000).optional().describe('Items for choice.'),
  length: z.number().int().min(1).max(4_096).default(16).describe('Password or byte length.'),
  charset: z
    .enum(Object.keys(CHARSETS) as [Charset, ...Charset[]])
    .default('alphanumeric_symbols')
    .describe('Password alphabet.'),
  encoding: z.enum(['hex', 'base64', 'base64url']).default('hex').describe('Bytes encoding.'),
});

type RandomArgs = typeof randomGenerateSchema extends ToolSchema<infer T> ? T : never;

/** The `random_generate` tool. */
export function createRandomGenerateTool(): AnyToolDefinition {
  return defineStructuredTool({
    id: 'random_generate',
    description: 'Generates secure random integers, floats, choices, passwords or bytes.',
    inputSchema: randomGenerateSchema,
    outputSchema: ToolSchema.object({
      kind: z.enum(KINDS),
      values: z.array(z.union([z.number(), z.string()])),
    }),
    tags: ['random'],
    idempotent: false,
    execute(args) {
      const values = generate(args);
      const content = values.map(String).join('\n');
      return successResult(content, { data: { kind: args.kind, values } });
    },
  });
}

function generate(args: RandomArgs): Array<number | string> {
  switch (args.kind) {
    case 'integer':
      return randomIntegers(args);
    case 'float': {
      if (!(args.min < args.max)) throw invalidArgument('max', 'must be greater than min');
      return Array.from({ length: args.count }, () => {
        // 53 random bits give every representable step of [0, 1).
        const unit = Number(randomBytes(8).readBigUInt64BE(0) >> 11n) / 2 ** 53;
        return args.min + unit * (args.max - args.min);
      });
    }
    case 'choice':
      return randomChoices(args);
    case 'password':
      return Array.from({ length: args.count }, () => password(args.length, args.charset));
    case 'bytes':
      return Array.from({ length: args.count }, () =>
        randomBytes(args.length).toString(args.encoding),
      );
    default: {
      const unreachable: never = args.kind;
      throw new Error(`unknown kind ${String(unreachable)}`);
    }
  }
}

function randomIntegers(args: RandomArgs): number[] {
  const min = Math.ceil(args.min);
  const max = Math.floor(args.max);
  if (!Number.isSafeInteger(min)) throw invalidArgument('min', 'must be a safe integer');
  if (!Number.isSafeInteger(max)) throw invalidArgument('max', 'must be a safe integer');
  if (max < min) throw invalidArgument('max', `must be at least min (${min})`);
  if (max - min > MAX_INTEGER_RANGE) {
    throw invalidArgument('max', 'the range max - min must be below 2^48');
  }
  const span = max - min + 1;
  if (!args.unique) return Array.from({ length: args.count }, () => randomInt(min, max + 1));
  if (args.count > span) {
    throw invalidArgument('count', `cannot draw ${args.count} unique integers from ${span} values`);
  }
  const seen = new Set<number>();
  // Rejection is cheap while count <= span/2; otherwise shuffle the whole (small) range.
  if (args.count * 2 <= span) {
    while (seen.size < args.count) seen.add(randomInt(min, max + 1));
    return [...seen];
  }
  const pool = Array.from({ length: span }, (_, i) => min + i);
  return shuffle(pool).slice(0, args.count);
}

function randomChoices(args: RandomArgs): string[] {
  const choices = args.choices;
  if (!choices) {
    throw invalidArgument(
      'choices',
      'required for kind=choice',
      'Pass the items as a list of strings.',
    );
  }
  if (!args.unique) {
    return Array.from({ length: args.count }, () => choices[randomInt(choices.length)] as string);
  }
  if (args.count > choices.length) {
    throw invalidArgument('count', `cannot pick ${args.count} unique items from ${choices.length}`);
  }
  return shuffle([...choices]).slice(0, args.count);
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

function password(length: number, charset: Charset): string {
  const classes = CHARSETS[charset];
  const alphabet = classes.join('');
  for (;;) {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
    // Redraw (rather than patch) so every accepted password stays uniformly distributed.
    if (length < classes.length || classes.every((set) => [...out].some((c) => set.includes(c)))) {
      return out;
    }
  }
}
