import { invalidArgument } from '@toolsys/core-tool-registry';
import type { RE2JS } from 're2js';
import { lazyModule } from './lazy-module.js';

const re2js = lazyModule<typeof import('re2js')>('re2js', import.meta.url);

/** Flags understood by {@link compileLinearRegex}. */
export interface LinearRegexFlags {
  /** Case-insensitive matching (`i`). */
  ignoreCase?: boolean;
  /** `^` and `$` match at line breaks (`m`). */
  multiline?: boolean;
  /** `.` also matches line breaks (`s`). */
  dotAll?: boolean;
}

/** What RE2 leaves out, explained once for every regex tool. */
export const LINEAR_REGEX_LIMITS = 'RE2: no backreferences or lookahead.';

const UNSUPPORTED_HINT =
  'Rewrite the pattern without backreferences or lookahead (for example capture the part and compare it afterwards), then retry.';

/**
 * Compiles a JavaScript-style pattern with RE2 (linear-time matching). Backreferences and
 * lookahead, which RE2 cannot run in linear time, are refused as INVALID_ARGUMENT on `field`.
 */
export function compileLinearRegex(
  pattern: string,
  flags: LinearRegexFlags,
  field = 'pattern',
): RE2JS {
  const unsupported = findUnsupportedConstruct(pattern);
  if (unsupported) {
    throw invalidArgument(
      field,
      `${unsupported} is not supported: this tool uses the linear-time RE2 engine, which has no backreferences or lookahead`,
      UNSUPPORTED_HINT,
    );
  }
  let bits = re2js().RE2JS.LOOKBEHINDS;
  if (flags.ignoreCase) bits |= re2js().RE2JS.CASE_INSENSITIVE;
  if (flags.multiline) bits |= re2js().RE2JS.MULTILINE;
  if (flags.dotAll) bits |= re2js().RE2JS.DOTALL;
  try {
    return re2js().RE2JS.compile(re2js().RE2JS.translateRegExp(pattern), bits);
  } catch (error) {
    const message = (error as Error).message.replace(/^error parsing regexp: /, '');
    throw invalidArgument(
      field,
      `invalid regular expression: ${message}`,
      'Fix the pattern (escape special characters such as ( [ { . * + ? with a backslash) and retry.',
    );
  }
}

/** Finds a backreference or lookahead outside a character class; RE2 cannot run them. */
function findUnsupportedConstruct(pattern: string): string | undefined {
  let inClass = false;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '\\') {
      const next = pattern[index + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return `the backreference \\${next}`;
      if (!inClass && next === 'k' && pattern[index + 2] === '<') return 'the backreference \\k<…>';
      index++;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '[') {
      inClass = true;
      // A `]` right after `[` or `[^` is a literal member of the class.
      if (pattern[index + 1] === '^') index++;
      if (pattern[index + 1] === ']') index++;
      continue;
    }
    if (char === '(' && pattern[index + 1] === '?') {
      const kind = pattern[index + 2];
      if (kind === '=' || kind === '!') return `the lookahead (?${kind}…)`;
    }
  }
  return undefined;
}
