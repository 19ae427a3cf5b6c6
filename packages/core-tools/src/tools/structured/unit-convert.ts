import {
  type AnyToolDefinition,
  invalidArgument,
  successResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import type { MathJsInstance, Unit } from 'mathjs';
import { z } from 'zod';
import { loadMathjs } from '../load-mathjs.js';
import { defineStructuredTool } from './shared.js';

/** Spellings models use that mathjs does not know. */
const UNIT_ALIASES: Record<string, string> = {
  '°c': 'degC',
  '°f': 'degF',
  '℃': 'degC',
  '℉': 'degF',
  celsius: 'degC',
  fahrenheit: 'degF',
  kelvin: 'K',
  kph: 'km/h',
  kmh: 'km/h',
  mph: 'mi/h',
  'km/hr': 'km/h',
  'mi/hr': 'mi/h',
};

const unitConvertSchema = ToolSchema.object({
  value: z.number().finite().describe('Value.'),
  from: z.string().min(1).max(100).describe('Unit, e.g. "km", "degC".'),
  to: z.string().min(1).max(100).describe('Target unit.'),
  precision: z.number().int().min(1).max(17).default(12).describe('Significant digits.'),
});

function createUnitConvertTool(): AnyToolDefinition {
  let math: MathJsInstance | undefined;
  return defineStructuredTool({
    id: 'unit_convert',
    description: 'Converts a value between units, e.g. km/h, degF, GiB, kWh.',
    inputSchema: unitConvertSchema,
    outputSchema: ToolSchema.object({
      value: z.number(),
      from: z.string(),
      to: z.string(),
      result: z.number(),
    }),
    tags: ['units', 'convert'],
    execute(args) {
      math ??= loadMathjs().create();
      const from = normaliseUnit(args.from);
      const to = normaliseUnit(args.to);
      const source = parseUnit(math, args.value, from, 'from');
      parseUnit(math, 1, to, 'to');
      let result: number;
      try {
        // 15 significant digits drop binary noise such as 211.99999999999997 for 100 degC in degF.
        result = Number(source.toNumber(to).toPrecision(15));
      } catch {
        throw invalidArgument(
          'to',
          `cannot convert ${args.from} to ${args.to}: they measure different things`,
          'Pick a target unit of the same dimension (length to length, mass to mass …).',
        );
      }
      const formatted = math.format(result, { precision: args.precision });
      return successResult(`${args.value} ${args.from} = ${formatted} ${args.to}`, {
        data: { value: args.value, from: args.from, to: args.to, result },
      });
    },
  });
}

function normaliseUnit(unit: string): string {
  const trimmed = unit.trim();
  return UNIT_ALIASES[trimmed.toLowerCase()] ?? trimmed;
}

function parseUnit(math: MathJsInstance, value: number, unit: string, field: string): Unit {
  try {
    return math.unit(value, unit);
  } catch (error) {
    throw invalidArgument(
      field,
      `unknown unit "${unit}" (${(error as Error).message})`,
      'Use a unit symbol such as m, km, ft, kg, lb, degC, degF, K, L, gal, km/h, B, MiB, J, W, Pa.',
    );
  }
}

/** `unit_convert`. */
export function createUnitConvertTools(): AnyToolDefinition[] {
  return [createUnitConvertTool()];
}
