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
  /** Descriptions already rewritten by {@link ListedNames.inText}, until the ids change. */
  readonly #texts = new Map<string, string>();

  /** `ids` gives the registry's current ids; call {@link ListedNames.reset} when they change. */
  constructor(mode: ListedNameMode, ids: () => readonly string[]) {
    this.#mode = mode;
    this.#ids = ids;
  }

  /** Forgets the mapping after the registry changed. */
  reset(): void {
    this.#names = undefined;
    this.#texts.clear();
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

  /**
   * `text` (a description) with every id that is listed under another name written as that name,
   * so that the text names the tools as the client lists them (`use terminal_run`).
   */
  inText(text: string): string {
    if (this.#mode === 'ids') return text;
    const known = this.#texts.get(text);
    if (known !== undefined) return known;
    let renamed = text;
    for (const [id, name] of this.#mapping().entries()) {
      if (id === name || !renamed.includes(id)) continue;
      renamed = renamed.replace(idPattern(id), name);
    }
    this.#texts.set(text, renamed);
    return renamed;
  }

  #mapping(): ProviderNames {
    this.#names ??= ProviderNames.from(this.#ids());
    return this.#names;
  }
}

/** Matches `id` as a whole tool id: not inside a longer id (`terminal.run` in `terminal.run_x`). */
function idPattern(id: string): RegExp {
  const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_.-])${escaped}(?![A-Za-z0-9_-]|\\.[A-Za-z0-9_])`, 'g');
}
