import type { ToolTraceSpan } from '@toolsys/core-tool-registry';

/** A frequent pair of tools worth packaging as a shortcut. */
export interface ShortcutSuggestion {
  /** The two tool ids, in call order. */
  readonly tools: readonly [string, string];
  /** How often the pair ran back to back, both successfully. */
  readonly count: number;
}

/** Options for {@link ShortcutSuggester}. */
export interface ShortcutSuggesterOptions {
  /** Occurrences needed before a pair is suggested. Default 3. */
  minOccurrences?: number;
  /** Most suggestions returned. Default 5. */
  limit?: number;
}

const META_TOOLS = new Set([
  'tool_batch_run',
  'shortcut_define',
  'shortcut_list',
  'shortcut_run',
  'wait',
]);

/**
 * Mines trace spans for adjacent successful calls (bigrams) that recur at least three times, and
 * suggests packaging them as shortcuts. Refusals and failures break adjacency; retries count once.
 */
export class ShortcutSuggester {
  readonly #min: number;
  readonly #limit: number;

  constructor(options: ShortcutSuggesterOptions = {}) {
    this.#min = Math.max(1, options.minOccurrences ?? 3);
    this.#limit = Math.max(1, options.limit ?? 5);
  }

  /** Suggestions from spans (oldest first), most frequent first. */
  suggest(spans: readonly ToolTraceSpan[]): ShortcutSuggestion[] {
    const counts = new Map<string, number>();
    let previous: ToolTraceSpan | undefined;
    for (const span of spans) {
      const usable =
        span.outcome === 'ok' &&
        span.attempt > 0 &&
        !META_TOOLS.has(span.toolId) &&
        !span.toolId.startsWith('shortcut.');
      if (!usable) {
        previous = undefined;
        continue;
      }
      if (previous && previous.callId !== span.callId) {
        const key = `${previous.toolId}\u0000${span.toolId}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      previous = span;
    }
    return [...counts.entries()]
      .filter(([, count]) => count >= this.#min)
      .map(([key, count]) => {
        const [first, second] = key.split('\u0000') as [string, string];
        return { tools: [first, second] as const, count };
      })
      .sort((a, b) => b.count - a.count || a.tools.join().localeCompare(b.tools.join()))
      .slice(0, this.#limit);
  }
}
