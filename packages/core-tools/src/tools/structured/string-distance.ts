import { type AnyToolDefinition, successResult, ToolSchema } from '@toolsys/core-tool-registry';
import { distance as fastLevenshtein } from 'fastest-levenshtein';
import { z } from 'zod';
import { defineStructuredTool } from './shared.js';

/** Quadratic metrics stay well under a second at this size. */
const MAX_LENGTH = 10_000;

const METRICS = ['all', 'levenshtein', 'damerau', 'jaro_winkler', 'hamming', 'similarity'] as const;

const stringDistanceSchema = ToolSchema.object({
  a: z.string().max(MAX_LENGTH).describe('First string.'),
  b: z.string().max(MAX_LENGTH).describe('Second string.'),
  metric: z.enum(METRICS).default('all').describe('Metric (all: every one).'),
  ignoreCase: z.boolean().default(false).describe('Case-insensitive.'),
});

interface Distances {
  levenshtein: number;
  damerau: number;
  jaroWinkler: number;
  hamming: number | null;
  similarity: number;
}

function createStringDistanceTool(): AnyToolDefinition {
  return defineStructuredTool({
    id: 'string_distance',
    description: 'Edit distances and similarity of two strings.',
    inputSchema: stringDistanceSchema,
    outputSchema: ToolSchema.object({
      levenshtein: z.number().optional(),
      damerau: z.number().optional(),
      jaroWinkler: z.number().optional(),
      hamming: z.number().nullable().optional(),
      similarity: z.number().optional(),
    }),
    tags: ['text', 'fuzzy'],
    execute(args) {
      const a = args.ignoreCase ? args.a.toLowerCase() : args.a;
      const b = args.ignoreCase ? args.b.toLowerCase() : args.b;
      const all = computeDistances(a, b, args.metric);
      const keys: Array<keyof Distances> =
        args.metric === 'all'
          ? ['levenshtein', 'damerau', 'jaroWinkler', 'hamming', 'similarity']
          : [args.metric === 'jaro_winkler' ? 'jaroWinkler' : args.metric];
      const data: Partial<Distances> = {};
      for (const key of keys) (data as Record<string, unknown>)[key] = all[key];
      const content = keys
        .map(
          (key) =>
            `${key}: ${all[key] === null ? 'n/a (different lengths)' : round(all[key] as number)}`,
        )
        .join('\n');
      return successResult(content, { data });
    },
  });
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function computeDistances(a: string, b: string, metric: (typeof METRICS)[number]): Distances {
  const left = [...a];
  const right = [...b];
  const wants = (name: (typeof METRICS)[number]) => metric === 'all' || metric === name;
  const needsLevenshtein = wants('levenshtein') || wants('similarity');
  const levenshtein = needsLevenshtein ? levenshteinDistance(a, b, left, right) : 0;
  const longer = Math.max(left.length, right.length);
  return {
    levenshtein,
    damerau: wants('damerau') ? osaDistance(left, right) : 0,
    jaroWinkler: wants('jaro_winkler') ? round(jaroWinkler(left, right)) : 0,
    hamming:
      left.length === right.length ? left.filter((char, i) => char !== right[i]).length : null,
    similarity: longer === 0 ? 1 : round(1 - levenshtein / longer),
  };
}

function levenshteinDistance(a: string, b: string, left: string[], right: string[]): number {
  // fastest-levenshtein counts UTF-16 units; it is exact when no character needs two of them.
  if (left.length === a.length && right.length === b.length) return fastLevenshtein(a, b);
  let previous = Array.from({ length: right.length + 1 }, (_, j) => j);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
    }
    previous = current;
  }
  return previous[right.length] as number;
}

/** Optimal string alignment: Levenshtein plus transpositions of adjacent characters. */
function osaDistance(left: string[], right: string[]): number {
  const width = right.length + 1;
  let before = new Uint32Array(width);
  let previous = Uint32Array.from({ length: width }, (_, j) => j);
  let current = new Uint32Array(width);
  for (let i = 1; i <= left.length; i++) {
    current[0] = i;
    for (let j = 1; j <= right.length; j++) {
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && left[i - 1] === right[j - 2] && left[i - 2] === right[j - 1]) {
        value = Math.min(value, (before[j - 2] as number) + 1);
      }
      current[j] = value;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[right.length] as number;
}

function jaroWinkler(left: string[], right: string[]): number {
  if (left.length === 0 && right.length === 0) return 1;
  if (left.length === 0 || right.length === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(left.length, right.length) / 2) - 1);
  const leftMatched = new Uint8Array(left.length);
  const rightMatched = new Uint8Array(right.length);
  let matches = 0;
  for (let i = 0; i < left.length; i++) {
    const start = Math.max(0, i - window);
    const end = Math.min(right.length - 1, i + window);
    for (let j = start; j <= end; j++) {
      if (rightMatched[j] || left[i] !== right[j]) continue;
      leftMatched[i] = 1;
      rightMatched[j] = 1;
      matches++;
      break;
    }
  }
  if (matches === 0) return 0;
  let transpositions = 0;
  let k = 0;
  for (let i = 0; i < left.length; i++) {
    if (!leftMatched[i]) continue;
    while (!rightMatched[k]) k++;
    if (left[i] !== right[k]) transpositions++;
    k++;
  }
  const jaro =
    (matches / left.length + matches / right.length + (matches - transpositions / 2) / matches) / 3;
  let prefix = 0;
  while (prefix < 4 && prefix < left.length && left[prefix] === right[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

/** `string_distance`. */
export function createStringDistanceTools(): AnyToolDefinition[] {
  return [createStringDistanceTool()];
}
