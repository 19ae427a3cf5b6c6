// `calculate`: mathjs expressions without the functions that reach outside arithmetic.
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import type { MathJsInstance } from 'mathjs';
import { z } from 'zod';
import { loadMathjs } from '../load-mathjs.js';

const MAX_EXPRESSION_LENGTH = 2_000;

/** Functions removed from the expression language: they reach outside arithmetic or allocate without bound. */
const DISABLED_FUNCTIONS = [
  'import',
  'createUnit',
  'evaluate',
  'parse',
  'compile',
  'simplify',
  'simplifyConstant',
  'simplifyCore',
  'derivative',
  'resolve',
  'reviver',
  'replacer',
  'chain',
  'range',
  'ones',
  'zeros',
  'identity',
  'matrix',
  'sparse',
  'resize',
  'concat',
  'kron',
  'random',
  'randomInt',
  'pickRandom',
];

/** Significant digits of the exact evaluation; integers up to this many digits are exact. */
const EXACT_DIGITS = 64;

function createSafeMath(number: 'number' | 'BigNumber'): MathJsInstance {
  // mathjs loads on the first calculation (inside the CPU worker when the pool runs it).
  const math = loadMathjs().create({ number, precision: EXACT_DIGITS });
  const evaluate = math.evaluate.bind(math);
  const replacements: Record<string, () => never> = {};
  for (const name of DISABLED_FUNCTIONS) {
    replacements[name] = () => {
      throw new Error(`function ${name} is not available in calculate`);
    };
  }
  math.import(replacements, { override: true });
  // Keep a private evaluate for the tool itself; the public one inside expressions is disabled.
  (math as unknown as { safeEvaluate: typeof evaluate }).safeEvaluate = evaluate;
  return math;
}

const calculateSchema = ToolSchema.object({
  expression: z
    .string()
    .min(1)
    .max(MAX_EXPRESSION_LENGTH)
    .describe('E.g. "sqrt(2)", "12 km to mi".'),
  precision: z.number().int().min(1).max(64).default(14).describe('Significant digits.'),
});

type Evaluation = { ok: true; value: unknown } | { ok: false; error: Error };

function evaluateSafely(math: MathJsInstance, expression: string): Evaluation {
  const { safeEvaluate } = math as unknown as {
    safeEvaluate: (expression: string, scope: Map<string, unknown>) => unknown;
  };
  try {
    return { ok: true, value: safeEvaluate(expression, new Map()) };
  } catch (error) {
    return { ok: false, error: error as Error };
  }
}

interface BigNumberLike {
  readonly isBigNumber: true;
  isInteger(): boolean;
  isFinite(): boolean;
  precision(includeZeros: boolean): number;
  toFixed(): string;
  toNumber(): number;
}

function isBigNumber(value: unknown): value is BigNumberLike {
  return (value as { isBigNumber?: unknown } | null)?.isBigNumber === true;
}

/**
 * The answer's text. An integer is written with all its digits when they are exact (up to 64),
 * whatever the precision; anything else is rounded to `precision` significant digits, and an
 * integer too large to be known exactly says so.
 */
function formatAnswer(
  math: MathJsInstance,
  value: unknown,
  precision: number,
): { text: string; number?: number } {
  if (isBigNumber(value)) {
    const number = value.toNumber();
    if (value.isFinite() && value.isInteger()) {
      const digits = value.precision(true);
      if (digits <= EXACT_DIGITS) return { text: value.toFixed(), number };
      return {
        text: `${math.format(value as never, { precision })} (may not be exact: only ${EXACT_DIGITS} significant digits are kept)`,
        number,
      };
    }
    return { text: math.format(value as never, { precision }), number };
  }
  const text = math.format(value as never, { precision });
  if (typeof value !== 'number') return { text };
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    return { text: `${text} (may not be exact: computed in floating point)`, number: value };
  }
  return { text, number: value };
}

/** The `calculate` tool. */
export function createCalculateTool(): AnyToolDefinition {
  // Building a math instance costs about 200 ms: each is made when first needed, not at start-up.
  /** Decimal arithmetic with 64 significant digits: exact integers, no binary rounding. */
  let exact: MathJsInstance | undefined;
  /** IEEE doubles, for the few functions the decimal evaluator does not support. */
  let float: MathJsInstance | undefined;
  return defineTool({
    id: 'calculate',
    description:
      'Evaluates a math expression exactly to 64 digits, with units and complex numbers.',
    inputSchema: calculateSchema,
    outputSchema: ToolSchema.object({
      expression: z.string(),
      result: z.string(),
      value: z.number().optional(),
    }),
    metadata: { category: 'utility', risk: 'LOW', tags: ['math'], annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    execute({ expression, precision }) {
      exact ??= createSafeMath('BigNumber');
      let used = exact;
      let evaluated = evaluateSafely(used, expression);
      if (!evaluated.ok) {
        // A function without decimal support (gamma of a fraction …): the same in doubles.
        float ??= createSafeMath('number');
        const fallback = evaluateSafely(float, expression);
        if (fallback.ok) {
          used = float;
          evaluated = fallback;
        }
      }
      if (!evaluated.ok) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `expression: cannot evaluate "${expression}": ${evaluated.error.message}`,
          {
            field: 'expression',
            hint: 'Fix the expression (numbers, operators, functions such as sqrt, sin, log) and retry.',
          },
        );
      }
      const { value } = evaluated;
      if (typeof value === 'function' || value === undefined) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `expression: "${expression}" does not evaluate to a value`,
          { field: 'expression' },
        );
      }
      const answer = formatAnswer(used, value, precision);
      const data: { expression: string; result: string; value?: number } = {
        expression,
        result: answer.text,
      };
      if (answer.number !== undefined) data.value = answer.number;
      return successResult(answer.text, { data });
    },
  });
}
