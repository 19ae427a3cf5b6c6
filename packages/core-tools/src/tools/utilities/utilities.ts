import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  ToolError,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { lazyModule } from '@toolsys/platform';
import type { MathJsInstance } from 'mathjs';
import { z } from 'zod';

/** mathjs loads on the first calculation (inside the CPU worker when the pool runs it). */
const mathjs = lazyModule<typeof import('mathjs')>('mathjs');
type MathJsAll = typeof import('mathjs')['all'];

const MAX_EXPRESSION_LENGTH = 2_000;
const MAX_TEXT_LENGTH = 1_000_000;

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
  const math = mathjs().create(mathjs().all as NonNullable<MathJsAll>, {
    number,
    precision: EXACT_DIGITS,
  });
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
    .describe(
      'A math expression, e.g. "2+3*4", "sqrt(2)^2", "sin(pi/4)", "12 km to mi", "5!". No variables persist between calls.',
    ),
  precision: z
    .number()
    .int()
    .min(1)
    .max(64)
    .default(14)
    .describe('Significant digits in the answer (1-64).'),
});

/** The two evaluators of calculate, made on first use. */
interface CalculateMath {
  /** Decimal arithmetic with 64 significant digits: exact integers, no binary rounding. */
  readonly exact: MathJsInstance;
  /** IEEE doubles, for the few functions the decimal evaluator does not support. */
  readonly float: MathJsInstance;
}

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

function createCalculateTool(): AnyToolDefinition {
  // Building the math instances costs hundreds of ms: do it on the first call, not at start-up.
  let math: CalculateMath | undefined;
  return defineTool({
    id: 'calculate',
    description:
      'Evaluates a math expression safely: arithmetic, powers, roots, trigonometry, logarithms, factorials, number theory (isPrime, gcd, mod), unit conversions ("10 inch to cm") and complex numbers. Decimal arithmetic with 64 significant digits: integers up to 64 digits are exact and written in full; other results are rounded to `precision`, and a result that cannot be exact says so. No code runs: only math. Use unit_convert for plain unit conversions and datetime for date arithmetic.',
    inputSchema: calculateSchema,
    outputSchema: ToolSchema.object({
      expression: z.string(),
      result: z.string(),
      value: z.number().optional(),
    }),
    metadata: { category: 'utility', risk: 'LOW', tags: ['math'], annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    execute({ expression, precision }) {
      math ??= { exact: createSafeMath('BigNumber'), float: createSafeMath('number') };
      let used = math.exact;
      let evaluated = evaluateSafely(used, expression);
      if (!evaluated.ok) {
        // A function without decimal support (gamma of a fraction …): the same in doubles.
        const fallback = evaluateSafely(math.float, expression);
        if (fallback.ok) {
          used = math.float;
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

const getTimeSchema = ToolSchema.object({
  timezone: z
    .string()
    .optional()
    .describe('IANA time zone such as "Europe/Paris" or "UTC". Default: the host\'s zone.'),
});

function createGetTimeTool(): AnyToolDefinition {
  return defineTool({
    id: 'get_time',
    description:
      'Returns the current date and time in a time zone: ISO 8601 with offset, weekday and Unix time. Use datetime to parse, shift or format other dates.',
    inputSchema: getTimeSchema,
    outputSchema: ToolSchema.object({
      iso: z.string(),
      timezone: z.string(),
      weekday: z.string(),
      unixMs: z.number(),
    }),
    metadata: { category: 'system', risk: 'LOW', tags: ['time'], annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    execute({ timezone }) {
      const zone = timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
      let parts: Intl.DateTimeFormatPart[];
      try {
        parts = new Intl.DateTimeFormat('en-US', {
          timeZone: zone,
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
          weekday: 'long',
          hourCycle: 'h23',
          timeZoneName: 'longOffset',
        }).formatToParts(new Date());
      } catch {
        throw new ToolError(
          ToolErrorCode.INVALID_ARGUMENT,
          `timezone: unknown time zone "${zone}"`,
          { field: 'timezone', hint: 'Use an IANA name such as "America/New_York" or "UTC".' },
        );
      }
      const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
      const offsetName = part('timeZoneName').replace('GMT', '');
      const offset = offsetName === '' ? '+00:00' : offsetName;
      const iso = `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}${offset === '+00:00' ? 'Z' : offset}`;
      const data = { iso, timezone: zone, weekday: part('weekday'), unixMs: Date.now() };
      return successResult(`${iso} (${data.weekday}, ${zone})`, { data });
    },
  });
}

const TEXT_OPERATIONS = [
  'upper',
  'lower',
  'title',
  'sentence',
  'camel',
  'pascal',
  'snake',
  'kebab',
  'constant',
  'trim',
  'collapse_whitespace',
  'slug',
  'reverse',
  'base64_encode',
  'base64_decode',
  'url_encode',
  'url_decode',
  'html_escape',
  'html_unescape',
  'length',
] as const;

type TextOperation = (typeof TEXT_OPERATIONS)[number];

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

function transform(text: string, operation: TextOperation): string {
  switch (operation) {
    case 'upper':
      return text.toUpperCase();
    case 'lower':
      return text.toLowerCase();
    case 'title':
      return text.replace(/\p{L}[\p{L}'’]*/gu, capitalise);
    case 'sentence':
      return text
        .toLowerCase()
        .replace(/(^\s*\p{L}|[.!?]\s+\p{L})/gu, (match) => match.toUpperCase());
    case 'camel':
      return words(text)
        .map((word, index) => (index === 0 ? word.toLowerCase() : capitalise(word)))
        .join('');
    case 'pascal':
      return words(text).map(capitalise).join('');
    case 'snake':
      return words(text)
        .map((word) => word.toLowerCase())
        .join('_');
    case 'kebab':
      return words(text)
        .map((word) => word.toLowerCase())
        .join('-');
    case 'constant':
      return words(text)
        .map((word) => word.toUpperCase())
        .join('_');
    case 'trim':
      return text.trim();
    case 'collapse_whitespace':
      return text.replace(/\s+/g, ' ').trim();
    case 'slug':
      return text
        .normalize('NFKD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '');
    case 'reverse':
      return [...text].reverse().join('');
    case 'base64_encode':
      return Buffer.from(text, 'utf8').toString('base64');
    case 'base64_decode': {
      const compact = text.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
        throw new ToolError(ToolErrorCode.INVALID_ARGUMENT, 'text: not valid base64', {
          field: 'text',
        });
      }
      return Buffer.from(compact, 'base64').toString('utf8');
    }
    case 'url_encode':
      return encodeURIComponent(text);
    case 'url_decode':
      try {
        return decodeURIComponent(text.replace(/\+/g, ' '));
      } catch {
        throw new ToolError(ToolErrorCode.INVALID_ARGUMENT, 'text: malformed percent-encoding', {
          field: 'text',
        });
      }
    case 'html_escape':
      return text
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
        .replace(/'/g, '&#39;');
    case 'html_unescape':
      return text
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, '&');
    case 'length':
      return String([...text].length);
    default: {
      const unreachable: never = operation;
      throw new Error(`unknown operation ${String(unreachable)}`);
    }
  }
}

const textTransformSchema = ToolSchema.object({
  text: z.string().max(MAX_TEXT_LENGTH).describe('The text to transform (up to 1 MB).'),
  operation: z
    .enum(TEXT_OPERATIONS)
    .describe(
      'What to do: case changes (upper, lower, title, sentence, camel, pascal, snake, kebab, constant), trim, collapse_whitespace, slug, reverse, base64_encode/decode, url_encode/decode, html_escape/unescape, length (in characters).',
    ),
});

function createTextTransformTool(): AnyToolDefinition {
  return defineTool({
    id: 'text_transform',
    description:
      'Transforms text: case styles, trimming, slugs, reversing, Base64, URL and HTML encoding, character count. Use regex_replace for pattern-based edits.',
    inputSchema: textTransformSchema,
    metadata: { category: 'utility', risk: 'LOW', tags: ['text'], annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    execute({ text, operation }) {
      const output = transform(text, operation);
      return successResult(output, { data: { operation, result: output } });
    },
  });
}

/** `calculate`, `get_time` and `text_transform`. */
export function createUtilityTools(): AnyToolDefinition[] {
  return [createCalculateTool(), createGetTimeTool(), createTextTransformTool()];
}
