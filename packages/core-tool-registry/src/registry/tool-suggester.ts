import { distance } from 'fastest-levenshtein';

/** The most ids a suggestion ever names. */
export const MAX_SUGGESTIONS = 3;

/**
 * Suggests up to three known ids close to an unknown one, by Levenshtein distance (a shared prefix
 * or a containing id also counts as close). Never returns the whole list.
 */
export class ToolSuggester {
  suggest(unknownId: string, knownIds: Iterable<string>, limit = MAX_SUGGESTIONS): string[] {
    const needle = unknownId.toLowerCase();
    if (!needle) return [];
    const threshold = Math.max(2, Math.ceil(needle.length * 0.4));
    const scored: { id: string; score: number }[] = [];
    for (const id of knownIds) {
      const candidate = id.toLowerCase();
      let score = distance(needle, candidate);
      if (candidate.includes(needle) || needle.includes(candidate)) {
        score = Math.min(score, 1 + Math.abs(candidate.length - needle.length) / 10);
      }
      if (score <= threshold) scored.push({ id, score });
    }
    scored.sort((a, b) => a.score - b.score || a.id.localeCompare(b.id));
    return scored.slice(0, Math.min(limit, MAX_SUGGESTIONS)).map(({ id }) => id);
  }
}
