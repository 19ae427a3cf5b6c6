/**
 * The tools a deployment knows of but does not serve: those of a package that is off (no token, no
 * device, disabled) and those its configuration leaves out, and served tools whose backend went
 * away (a device unplugged). A call or a search naming one learns why it is off and how to turn it
 * on, instead of hearing that it does not exist.
 */

/** A tool that exists but is off here. */
export interface OffTool {
  readonly id: string;
  /** The package it belongs to. */
  readonly owner: string;
  /** Why it is off here, one line. */
  readonly reason: string;
  /** How the user turns it on. */
  readonly hint: string;
  /** Its description, when known (a search matches and shows it). */
  readonly description?: string;
}

/** Loads off tools on first need (listing an off package's tools may cost a start of it). */
export type OffToolSource = () => Promise<Iterable<OffTool>>;

/**
 * The off tools of one registry. An id the registry serves is reported off only while its package
 * marks it away ({@link OffTools.markAway}).
 */
export class OffTools {
  readonly #known = new Map<string, OffTool>();
  readonly #away = new Map<string, OffTool>();
  readonly #pending: OffToolSource[] = [];
  readonly #isOn: (id: string) => boolean;
  #loading: Promise<void> | undefined;

  /** `isOn`: whether the registry serves an id now (a package may come on later). */
  constructor(isOn: (id: string) => boolean) {
    this.#isOn = isOn;
  }

  /** Records tools that are off. */
  add(tools: Iterable<OffTool>): void {
    for (const tool of tools) this.#known.set(tool.id, tool);
  }

  /** Adds a source, read the first time an off tool is looked for; a failing source adds none. */
  addSource(source: OffToolSource): void {
    this.#pending.push(source);
  }

  /**
   * Marks served tools as off for now: their backend went away (a device was unplugged). Calls
   * still reach them, since the backend may be back; searches list them as off until
   * {@link markBack}. Ids the registry does not serve are ignored.
   */
  markAway(tools: Iterable<OffTool>): void {
    for (const tool of tools) this.#away.set(tool.id, tool);
  }

  /** Ends {@link markAway} for these ids: their backend is back. */
  markBack(ids: Iterable<string>): void {
    for (const id of ids) this.#away.delete(id);
  }

  /** Whether a served tool is marked away now (a search lists it as off, not among the others). */
  isAway(id: string): boolean {
    return this.#isOn(id) && this.#away.has(id);
  }

  /** The off tool with this id, if one is known. */
  async find(id: string): Promise<OffTool | undefined> {
    if (this.#isOn(id)) return this.#away.get(id);
    if (!this.#known.has(id)) await this.#load();
    return this.#known.get(id);
  }

  /** Every off tool, sorted by id. */
  async list(): Promise<OffTool[]> {
    await this.#load();
    const notServed = [...this.#known.values()].filter((tool) => !this.#isOn(tool.id));
    const away = [...this.#away.values()].filter((tool) => this.#isOn(tool.id));
    return [...notServed, ...away].sort((a, b) => a.id.localeCompare(b.id));
  }

  async #load(): Promise<void> {
    while (this.#pending.length > 0 || this.#loading) {
      if (!this.#loading) {
        const sources = this.#pending.splice(0);
        this.#loading = Promise.all(
          sources.map(async (source) => {
            try {
              this.add(await source());
            } catch {
              // A source that cannot say which tools it has adds none.
            }
          }),
        ).then(() => {
          this.#loading = undefined;
        });
      }
      await this.#loading;
    }
  }
}
