import { principalKey } from '../contract/handle-owner.js';
import type { AnyToolDefinition, CallPrincipal, RegisteredTool } from '../contract/tool.js';
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
  /**
   * The principal key of the tool's definer when only that principal sees it (a run-time
   * shortcut or skill tool): only that principal's lists changed.
   */
  readonly definedBy?: string;
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

/** The map key of a tool: its id, apart per principal for tools defined at run time. */
function slotOf(id: string, definedBy: string | undefined): string {
  return definedBy === undefined ? id : `${definedBy}\u0000${id}`;
}

/**
 * Holds the tools of a deployment, keyed by their unique id. A tool defined at run time by a
 * principal (`definedBy`) lives in that principal's own namespace: the same id may be defined by
 * several principals, each sees only its own (ahead of a shared tool of the same id), and no
 * principal can replace another's. Lookups and lists take the caller's principal; without one
 * they answer for the `local` principal, as an executor embedded without principals does.
 */
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
      definedBy: tool.definedBy,
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
    const slot = slotOf(tool.id, tool.definedBy);
    const existing = this.#tools.get(slot);
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
    this.#tools.set(slot, registered);
    const outcome = existing ? 'replaced' : 'registered';
    this.#notify({
      type: outcome,
      id: tool.id,
      ...(tool.definedBy === undefined ? {} : { definedBy: tool.definedBy }),
    });
    return outcome;
  }

  /** Registers many tools with the same options. */
  registerAll(tools: Iterable<AnyToolDefinition>, options: RegisterOptions = {}): void {
    for (const tool of tools) this.register(tool, options);
  }

  /**
   * Removes a tool; returns whether it was there. `definedBy` names the principal key of a tool
   * defined at run time; without it the shared tool of that id is removed.
   */
  unregister(id: string, definedBy?: string): boolean {
    const removed = this.#tools.delete(slotOf(id, definedBy));
    if (removed) {
      this.#notify({ type: 'unregistered', id, ...(definedBy === undefined ? {} : { definedBy }) });
    }
    return removed;
  }

  /**
   * The tool with this id that `principal` sees (default: the `local` principal): its own
   * run-time tool of that id, else the shared one. Another principal's tool is never returned.
   */
  get(id: string, principal?: CallPrincipal): RegisteredTool | undefined {
    return this.#tools.get(slotOf(id, principalKey(principal))) ?? this.#tools.get(id);
  }

  /** Whether `principal` (default: `local`) sees a tool with this id. */
  has(id: string, principal?: CallPrincipal): boolean {
    return this.get(id, principal) !== undefined;
  }

  /** Number of registered tools, every principal's run-time tools included. */
  get size(): number {
    return this.#tools.size;
  }

  /** The ids `principal` (default: `local`) sees, sorted. */
  ids(principal?: CallPrincipal): string[] {
    const own = `${principalKey(principal)}\u0000`;
    const ids = new Set<string>();
    for (const slot of this.#tools.keys()) {
      if (!slot.includes('\u0000')) ids.add(slot);
      else if (slot.startsWith(own)) ids.add(slot.slice(own.length));
    }
    return [...ids].sort();
  }

  /** The tools `principal` (default: `local`) sees, sorted by id. */
  list(principal?: CallPrincipal): RegisteredTool[] {
    return this.ids(principal).map((id) => this.get(id, principal) as RegisteredTool);
  }

  /** Tools of one category that `principal` (default: `local`) sees, sorted by id. */
  listByCategory(category: ToolCategory, principal?: CallPrincipal): RegisteredTool[] {
    return this.list(principal).filter((tool) => tool.metadata.category === category);
  }

  /**
   * Non-empty categories in catalog order, each with the tools `principal` (default: `local`)
   * sees, sorted by id.
   */
  groupByCategory(
    principal?: CallPrincipal,
  ): Array<{ category: ToolCategory; tools: RegisteredTool[] }> {
    const all = this.list(principal);
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
