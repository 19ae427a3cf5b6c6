// One memory graph per principal: which SQLite file a caller's memory calls open.
import { mkdirSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { type CallPrincipal, principalDigest } from '@toolsys/core-tool-registry';
import { MemoryStore } from './memory-store.js';

/** Options for {@link MemoryStores}. */
export interface MemoryStoresOptions {
  /**
   * The database file of the local principal (and of everyone when `shared`), or `:memory:`.
   * It is the file every memory lived in before memory had owners, so that memory stays the
   * local principal's, whole, with nothing to migrate.
   */
  path: string;
  /**
   * Whether every caller shares one graph. Default false: each principal other than `local`
   * has its own database file, `<name>.principals/<digest of the principal>.db` beside `path`.
   */
  shared?: boolean;
  /** Opens a store; default {@link MemoryStore.open}. */
  open?: (path: string) => MemoryStore;
}

/**
 * The memory graphs of a deployment, one per principal (or one for all when `shared`), each opened
 * on its first use so that a deployment that never uses memory never loads SQLite. No call of one
 * principal can read, search or overwrite another's nodes, episodes or macros.
 */
export class MemoryStores {
  readonly #options: MemoryStoresOptions;
  readonly #open: (path: string) => MemoryStore;
  readonly #stores = new Map<string, MemoryStore>();

  constructor(options: MemoryStoresOptions) {
    this.#options = options;
    this.#open = options.open ?? ((path) => MemoryStore.open({ path }));
  }

  /** The file of `principal`'s graph (absent or `local`: the configured file). */
  pathOf(principal: Pick<CallPrincipal, 'id' | 'kind'> | undefined): string {
    const { path, shared } = this.#options;
    if (shared === true || principal === undefined || principal.kind === 'local') return path;
    if (path === ':memory:') return `:memory:${principalDigest({ ...principal, scopes: [] })}`;
    const name = basename(path, extname(path));
    const digest = principalDigest({ ...principal, scopes: [] });
    return join(dirname(path), `${name}.principals`, `${digest}.db`);
  }

  /** `principal`'s store, opened (and its folder made) on first use. Throws what opening throws. */
  for(principal: Pick<CallPrincipal, 'id' | 'kind'> | undefined): MemoryStore {
    const path = this.pathOf(principal);
    let store = this.#stores.get(path);
    if (store === undefined || !store.isOpen) {
      const file = path.startsWith(':memory:') ? ':memory:' : path;
      if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
      store = this.#open(file);
      this.#stores.set(path, store);
    }
    return store;
  }

  /** Closes every opened store. */
  close(): void {
    for (const store of this.#stores.values()) store.close();
    this.#stores.clear();
  }
}
