import { createHash } from 'node:crypto';

/** The longest function name OpenAI and Anthropic accept. */
export const PROVIDER_NAME_MAX_LENGTH = 64;

const UNSAFE = /[^A-Za-z0-9_-]/g;

/** Options for {@link ProviderNames.from}. */
export interface ProviderNamesOptions {
  /** The longest name the provider accepts. Default 64 (OpenAI, Anthropic). */
  maxLength?: number;
}

/** Two tool ids that cannot be told apart in a provider's name space (a start-up mistake). */
export class ProviderNameCollisionError extends Error {
  /** The ids that collide. */
  readonly ids: readonly [string, string];
  /** The provider name both map to. */
  readonly providerName: string;

  constructor(providerName: string, first: string, second: string) {
    super(`Tool ids "${first}" and "${second}" both map to the provider name "${providerName}".`);
    this.name = 'ProviderNameCollisionError';
    this.ids = [first, second];
    this.providerName = providerName;
  }
}

function shortHash(id: string): string {
  return createHash('sha256').update(id).digest('hex').slice(0, 8);
}

/** The plain mapping of one id: every character a provider forbids (`.` included) becomes `_`. */
function plainName(id: string): string {
  return id.replace(UNSAFE, '_');
}

function withSuffix(base: string, id: string, maxLength: number): string {
  const suffix = `_${shortHash(id)}`;
  return `${base.slice(0, Math.max(1, maxLength - suffix.length))}${suffix}`;
}

/**
 * A reversible mapping between registry ids and provider-safe function names (`[A-Za-z0-9_-]`,
 * at most 64 characters). `demo.echo` becomes `demo_echo`; when that name is taken by
 * another id, or the id is too long, a short hash of the id is appended so that every id keeps a
 * distinct name. The mapping depends only on the set of ids, never on their order; the registry
 * id itself never changes.
 */
export class ProviderNames {
  readonly #byId: ReadonlyMap<string, string>;
  readonly #byName: ReadonlyMap<string, string>;

  private constructor(byId: Map<string, string>, byName: Map<string, string>) {
    this.#byId = byId;
    this.#byName = byName;
  }

  /**
   * Maps every id. Ids whose plain name is already safe and free keep it; the others get a hashed
   * suffix. Throws {@link ProviderNameCollisionError} when two ids still cannot be told apart.
   */
  static from(ids: Iterable<string>, options: ProviderNamesOptions = {}): ProviderNames {
    const maxLength = options.maxLength ?? PROVIDER_NAME_MAX_LENGTH;
    const sorted = [...new Set(ids)].sort();
    const byId = new Map<string, string>();
    const byName = new Map<string, string>();
    const claim = (id: string, name: string) => {
      const holder = byName.get(name);
      if (holder !== undefined) throw new ProviderNameCollisionError(name, holder, id);
      byName.set(name, id);
      byId.set(id, name);
    };
    // First pass: ids that are already provider-safe keep their exact name.
    for (const id of sorted) {
      if (plainName(id) === id && id.length <= maxLength) claim(id, id);
    }
    // Second pass: ids that need rewriting take the plain name if free, else a hashed one.
    const plainCounts = new Map<string, number>();
    for (const id of sorted) {
      if (byId.has(id)) continue;
      const plain = plainName(id);
      plainCounts.set(plain, (plainCounts.get(plain) ?? 0) + 1);
    }
    for (const id of sorted) {
      if (byId.has(id)) continue;
      const plain = plainName(id);
      const ambiguous = (plainCounts.get(plain) ?? 0) > 1 || byName.has(plain);
      const name = ambiguous || plain.length > maxLength ? withSuffix(plain, id, maxLength) : plain;
      claim(id, name);
    }
    return new ProviderNames(byId, byName);
  }

  /** The provider name of a tool id; undefined for an id that was not mapped. */
  toProviderName(id: string): string | undefined {
    return this.#byId.get(id);
  }

  /** The tool id behind a provider name; undefined for a name the model made up. */
  toToolId(providerName: string): string | undefined {
    return this.#byName.get(providerName);
  }

  /** Every `[toolId, providerName]` pair, sorted by tool id. */
  entries(): Array<[string, string]> {
    return [...this.#byId.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}
