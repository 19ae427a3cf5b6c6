import { createContext, Script } from 'node:vm';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';

/** Default CPU budget of one regex-heavy call: far above any normal input, short of a hang. */
export const DEFAULT_MATCH_TIME_LIMIT_MS = 5_000;

/** The next step after a regex that ran out of time (the default hint). */
export const REGEX_TIMEOUT_HINT =
  'Simplify the pattern (fewer nested or counted repetitions such as {100}), shorten the text, or lower maxMatches, then retry.';

const script = new Script('run()');
let context: { run: () => unknown } | undefined;

/**
 * Runs synchronous matching work with a hard time limit. RE2 is linear in the text, but the factor
 * is the compiled program's size, so a huge repetition over megabytes could still block the event
 * loop for minutes; V8 terminates the work at the limit (the vm watchdog stops host functions too)
 * and the call ends with TIMEOUT instead, with `hint` as the next step (written for the tool's own
 * input: a regex, an XPath, a JSONPath query, a CSV filter).
 */
export function runWithTimeLimit<T>(
  work: () => T,
  limitMs: number,
  what: string,
  hint: string = REGEX_TIMEOUT_HINT,
): T {
  if (context === undefined) {
    context = createContext({ run: () => undefined }) as { run: () => unknown };
  }
  context.run = work;
  try {
    return script.runInContext(context, { timeout: limitMs }) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new ToolError(
        ToolErrorCode.TIMEOUT,
        `${what} was stopped after ${limitMs} ms of matching`,
        { retryable: false, hint },
      );
    }
    throw error;
  } finally {
    context.run = () => undefined;
  }
}
