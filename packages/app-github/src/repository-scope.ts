/** Options for {@link RepositoryScope}. */
export interface RepositoryScopeOptions {
  /** Repositories the tools may touch, as `owner/repo`. */
  allowedRepos?: readonly string[] | undefined;
  /** Owners (users or organisations) all of whose repositories the tools may touch. */
  allowedOwners?: readonly string[] | undefined;
}

/**
 * Which repositories the tools may touch. Unset means every repository the token can reach; when
 * set, it is a defence against prompt-injected cross-repository reads (an issue in a public
 * repository telling the agent to read a private one). GitHub names compare case-insensitively.
 */
export class RepositoryScope {
  readonly #repos: ReadonlySet<string>;
  readonly #owners: ReadonlySet<string>;

  constructor(options: RepositoryScopeOptions = {}) {
    this.#repos = new Set((options.allowedRepos ?? []).map((name) => name.toLowerCase()));
    this.#owners = new Set((options.allowedOwners ?? []).map((name) => name.toLowerCase()));
  }

  /** Whether any restriction is configured. */
  get isRestricted(): boolean {
    return this.#repos.size > 0 || this.#owners.size > 0;
  }

  /** Whether the tools may touch `owner/repo`. */
  allows(owner: string, repo: string): boolean {
    if (!this.isRestricted) return true;
    const ownerKey = owner.toLowerCase();
    return this.#owners.has(ownerKey) || this.#repos.has(`${ownerKey}/${repo.toLowerCase()}`);
  }

  /** Search qualifiers limiting a code search to the scope (`repo:a/b user:c`); empty when open. */
  searchQualifiers(): string[] {
    return [
      ...[...this.#repos].map((name) => `repo:${name}`),
      ...[...this.#owners].map((name) => `user:${name}`),
    ];
  }

  /** The scope in words, for refusals. */
  describe(): string {
    const parts = [...this.#repos, ...[...this.#owners].map((owner) => `${owner}/*`)];
    return parts.join(', ');
  }
}
