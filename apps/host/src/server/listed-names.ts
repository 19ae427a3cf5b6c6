import { ProviderNames } from '@toolsys/core-tool-registry/adapters';

/**
 * Which names `tools/list` shows: `safe` lists every tool under a name every client accepts
 * (`^[a-zA-Z0-9_-]{1,64}$`: `terminal.run` is listed as `terminal_run`), `ids` lists the ids as
 * they are. Calls by the id or by the listed name work in both.
 */
export type ListedNameMode = 'safe' | 'ids';

/** The names a connection lists tools under, and the tool id behind a name a client calls. */
export class ListedNames {
  readonly #mode: ListedNameMode;
  readonly #ids: () => readonly string[];
  #names: ProviderNames | undefined;

  /** `ids` gives the registry's current ids; call {@link ListedNames.reset} when they change. */
  constructor(mode: ListedNameMode, ids: () => readonly string[]) {
    this.#mode = mode;
    this.#ids = ids;
  }

  /** Forgets the mapping after the registry changed. */
  reset(): void {
    this.#names = undefined;
  }

  /** The name tool `id` is listed under. */
  nameOf(id: string): string {
    if (this.#mode === 'ids') return id;
    return this.#mapping().toProviderName(id) ?? id;
  }

  /**
   * The tool id a called name stands for: the id behind a listed safe name, else the name itself
   * (an id is never the safe name of another id).
   */
  idOf(name: string): string {
    if (this.#mode === 'ids') return name;
    return this.#mapping().toToolId(name) ?? name;
  }

  #mapping(): ProviderNames {
    this.#names ??= ProviderNames.from(this.#ids());
    return this.#names;
  }
}
