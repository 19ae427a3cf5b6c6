/** An artifact the MCP server linked in a call result, as a resource a client can read. */
export interface LinkedArtifact {
  /** Its resource URI (`toolsys://data/…`). */
  readonly uri: string;
  /** Its path relative to the data directory. */
  readonly relativePath: string;
  /** Its file name. */
  readonly name: string;
  /** Its media type, as the tool gave it. */
  readonly mimeType: string;
  /** What it holds, as the tool gave it. */
  readonly description?: string;
  /** Its size in bytes when it was linked. */
  readonly size: number;
  /** The principal whose call linked it (`principalKey`): nobody else may read it. */
  readonly owner: string;
}

/** The last artifacts linked, by URI, at most `limit`; the oldest is dropped first. */
export class RecentArtifacts {
  readonly #limit: number;
  readonly #byUri = new Map<string, LinkedArtifact>();

  /** @param limit How many artifacts are kept. */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Records an artifact as the newest (again, when it is already known). */
  add(artifact: LinkedArtifact): void {
    this.#byUri.delete(artifact.uri);
    this.#byUri.set(artifact.uri, artifact);
    if (this.#byUri.size > this.#limit) {
      const oldest = this.#byUri.keys().next();
      if (!oldest.done) this.#byUri.delete(oldest.value);
    }
  }

  /**
   * The artifact linked under `uri` when it is still kept and `owner` (a `principalKey`) linked
   * it; undefined for another principal's artifact exactly as for one never linked.
   */
  get(uri: string, owner: string): LinkedArtifact | undefined {
    const artifact = this.#byUri.get(uri);
    return artifact?.owner === owner ? artifact : undefined;
  }

  /** The kept artifacts, newest first. */
  list(): LinkedArtifact[] {
    return [...this.#byUri.values()].reverse();
  }
}
