// One McpManager per principal: each principal's connections carry that principal's own sign-ins,
// so no principal's call ever goes out with another's token.
import { principalKey, type ToolContext } from '@toolsys/core-tool-registry';
import type { McpManager } from './mcp-manager.js';

/** The managers of a deployment's principals, made on first use. */
export class PrincipalManagers {
  readonly #managers = new Map<string, McpManager>();
  readonly #create: (principal: string) => McpManager;
  #closed = false;

  /** `create`: makes the manager of one principal (its {@link principalKey}). */
  constructor(create: (principal: string) => McpManager) {
    this.#create = create;
  }

  /** The manager of `principal` (a {@link principalKey}). */
  of(principal: string): McpManager {
    let manager = this.#managers.get(principal);
    if (manager === undefined) {
      manager = this.#create(principal);
      if (this.#closed) void manager.close();
      this.#managers.set(principal, manager);
    }
    return manager;
  }

  /** The manager of a call's principal. */
  readonly forCaller = (context: Pick<ToolContext, 'principal'>): McpManager =>
    this.of(principalKey(context.principal));

  /** The manager of the local user (the CLI, a stdio client, the operator). */
  get local(): McpManager {
    return this.of(principalKey(undefined));
  }

  /** Every manager made so far, by principal. */
  entries(): [string, McpManager][] {
    return [...this.#managers];
  }

  /** Closes every manager (every connection and child process). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#managers.values()].map((manager) => manager.close()));
  }
}
