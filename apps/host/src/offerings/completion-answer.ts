import type { CompletionAnswer } from '../server/offerings.js';
import { OFFERING_LIMITS } from './offering-limits.js';

/**
 * The values that start with `prefix`, without repeats, in the order given, at most 100, with
 * `total` and `hasMore` telling how many matched.
 */
export function completionAnswer(values: Iterable<string>, prefix: string): CompletionAnswer {
  const matching = [...new Set(values)].filter(
    (value) => typeof value === 'string' && value.startsWith(prefix),
  );
  const kept = matching.slice(0, OFFERING_LIMITS.completionValues);
  return { values: kept, total: matching.length, hasMore: matching.length > kept.length };
}

/** The answer with no values. */
export const NO_COMPLETION: CompletionAnswer = Object.freeze({ values: [] });
