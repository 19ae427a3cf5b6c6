/** What a benchmark prints: its figures, and the ratio it is judged by. */
export interface BenchReport {
  /** Bench name, e.g. `pipeline`. */
  readonly name: string;
  /** One-line statement of the target, e.g. `ratio <= 1.0`. */
  readonly target: string;
  /** Whether the target was met in this run. */
  readonly met: boolean;
  /** Human-readable lines printed without `--json`. */
  readonly lines: readonly string[];
  /** The JSON object printed with `--json` (includes the headline figure such as `ratio`). */
  readonly json: Record<string, unknown>;
}

/** Options every bench accepts. */
export interface BenchOptions {
  /** Shorter run for smoke tests (fewer iterations, smaller data). */
  readonly quick: boolean;
}

/** A benchmark. */
export interface Bench {
  readonly name: string;
  readonly summary: string;
  run(options: BenchOptions): Promise<BenchReport>;
}

/** Formats a ratio with two decimals. */
export function formatRatio(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : String(value);
}

/** The value at `fraction` (0..1) of an ascending list, nearest-rank; NaN for an empty list. */
export function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}
