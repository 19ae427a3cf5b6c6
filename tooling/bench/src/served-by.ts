/** Which replica answered each call of the 2026-07-28 clients behind HAProxy (`x-served-by`). */
export class ServedBy {
  #counts = new Map<string, number>();

  /** Counts `response` for the replica HAProxy names in it (`unknown` when it names none). */
  readonly record = (response: Response): void => {
    const server = response.headers.get('x-served-by') ?? 'unknown';
    this.#counts.set(server, (this.#counts.get(server) ?? 0) + 1);
  };

  /** Forgets what was counted so far (the warm-up). */
  reset(): void {
    this.#counts.clear();
  }

  /** Responses per replica, by name. */
  counts(): Record<string, number> {
    return Object.fromEntries([...this.#counts].sort(([a], [b]) => a.localeCompare(b)));
  }

  /**
   * The least-served replica's share over an even share: 1 when `replicas` replicas served
   * exactly alike, 0 when one of them served nothing.
   */
  evenness(replicas: number): number {
    const counts = [...this.#counts].filter(([name]) => name !== 'unknown').map(([, n]) => n);
    const total = [...this.#counts.values()].reduce((sum, n) => sum + n, 0);
    if (counts.length < replicas || total === 0) return 0;
    return Math.min(...counts) / (total / replicas);
  }
}
