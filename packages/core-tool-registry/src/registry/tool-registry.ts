import type { AnyToolDefinition, RegisteredTool } from '../contract/tool.js';
import { resolveMetadata, TOOL_CATEGORIES, type ToolCategory } from '../contract/tool-metadata.js';
import { OffTools } from './off-tools.js';

/** What `register` does when the id is already taken. */
export type RegisterPolicy = 'REPLACE' | 'REJECT' | 'KEEP_EXISTING';

/** What `register` did. */
export type RegisterOutcome = 'registered' | 'replaced' | 'kept';

/** Options for {@link ToolRegistry.register}. */
export interface RegisterOptions {
  /** On a taken id: REPLACE (default), REJECT (throws) or KEEP_EXISTING. */
  policy?: RegisterPolicy;
  /** Who registers the tool (a package name); named in duplicate errors. */
  owner?: string;
}

/** A change to the registry, for listeners such as MCP `tools/list_changed`. */
export interface RegistryChange {
  readonly type: 'registered' | 'replaced' | 'unregistered';
  readonly id: string;
}

/** Thrown when an id is registered twice under the REJECT policy (a start-up mistake). */
export class DuplicateToolError extends Error {
  readonly id: string;
  readonly owners: readonly [string, string];

  constructor(id: string, existingOwner: string, newOwner: string) {
    super(`Tool id "${id}" is registered by both ${existingOwner} and ${newOwner}.`);
    this.name = 'DuplicateToolError';
    this.id = id;
    this.owners = [existingOwner, newOwner];
  }
}

const VALID_ID = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/;
const MCP_ID = /^mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_.-]+$/;

/** Holds the tools of a deployment, keyed by their unique id. */
export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();
  readonly #listeners = new Set<(change: RegistryChange) => void>();
  /**
   * Tools that exist but are off here (their package is off, the configuration leaves them out):
   * a call naming one is told why and how to turn it on, a search lists it as off.
   */
  readonly off = new OffTools((id) => this.#tools.has(id));

  /**
   * A copy of `tool` with `overrides` (such as completed `metadata`) in place of its own
   * fields: every field of the tool contract is an own property, so spreading the copy keeps it,
   * and any extra field the tool exposes (a wrapper's getters) stays reachable through the
   * prototype. Fields without a value are left out. `register` stores tools copied this way.
   */
  static copyTool<T extends AnyToolDefinition = AnyToolDefinition>(
    tool: AnyToolDefinition,
    overrides: Readonly<Record<string, unknown>> = {},
  ): T {
    const fields: Record<string, unknown> = {
      id: tool.id,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      metadata: tool.metadata,
      runPolicy: tool.runPolicy,
      environmentRules: tool.environmentRules,
      argumentLimits: tool.argumentLimits,
      riskOf: tool.riskOf?.bind(tool),
      revision: tool.revision,
      execute: tool.execute.bind(tool),
      ...overrides,
    };
    const descriptors: PropertyDescriptorMap = {};
    for (const [key, value] of Object.entries(fields)) {
      if (value !== undefined) descriptors[key] = { value, enumerable: true };
    }
    return Object.create(tool, descriptors) as T;
  }

  /** Registers a tool. Throws {@link DuplicateToolError} on a taken id under REJECT. */
  register(tool: AnyToolDefinition, options: RegisterOptions = {}): RegisterOutcome {
    const { policy = 'REPLACE', owner = 'unknown' } = options;
    if (!VALID_ID.test(tool.id) && !MCP_ID.test(tool.id) && !tool.id.startsWith('shortcut.')) {
      throw new Error(
        `Tool id "${tool.id}" is invalid: use lower-case letters, digits, "_" and "." segments.`,
      );
    }
    const existing = this.#tools.get(tool.id);
    if (existing) {
      if (policy === 'KEEP_EXISTING') return 'kept';
      if (policy === 'REJECT') throw new DuplicateToolError(tool.id, existing.owner, owner);
    }
    const registered = Object.freeze(
      ToolRegistry.copyTool<RegisteredTool>(tool, {
        metadata: Object.freeze(resolveMetadata(tool.metadata)),
        owner,
      }),
    );
    this.#tools.set(tool.id, registered);
    const outcome = existing ? 'replaced' : 'registered';
    this.#notify({ type: outcome, id: tool.id });
    return outcome;
  }

  /** Registers many tools with the same options. */
  registerAll(tools: Iterable<AnyToolDefinition>, options: RegisterOptions = {}): void {
    for (const tool of tools) this.register(tool, options);
  }

  /** Removes a tool; returns whether it was there. */
  unregister(id: string): boolean {
    const removed = this.#tools.delete(id);
    if (removed) this.#notify({ type: 'unregistered', id });
    return removed;
  }

  /** The tool with this id, if any. */
  get(id: string): RegisteredTool | undefined {
    return this.#tools.get(id);
  }

  /** Whether a tool with this id is registered. */
  has(id: string): boolean {
    return this.#tools.has(id);
  }

  /** Number of registered tools. */
  get size(): number {
    return this.#tools.size;
  }

  /** All ids, sorted. */
  ids(): string[] {
    return [...this.#tools.keys()].sort();
  }

  /** All tools, sorted by id. */
  list(): RegisteredTool[] {
    return this.ids().map((id) => this.#tools.get(id) as RegisteredTool);
  }

  /** Tools of one category, sorted by id. */
  listByCategory(category: ToolCategory): RegisteredTool[] {
    return this.list().filter((tool) => tool.metadata.category === category);
  }

  /** Non-empty categories in catalog order, each with its tools sorted by id. */
  groupByCategory(): Array<{ category: ToolCategory; tools: RegisteredTool[] }> {
    const all = this.list();
    return TOOL_CATEGORIES.map((category) => ({
      category,
      tools: all.filter((tool) => tool.metadata.category === category),
    })).filter((group) => group.tools.length > 0);
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  onChange(listener: (change: RegistryChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #notify(change: RegistryChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch {
        // A listener's failure must not break registration.
      }
    }
  }
}
