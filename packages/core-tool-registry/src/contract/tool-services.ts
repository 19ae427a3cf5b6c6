import { ToolError, ToolErrorCode } from './tool-error.js';

/** A typed key for a service injected into tool contexts (a device, a page, a database). */
export interface ServiceKey<T> {
  readonly name: string;
  /** Phantom field carrying the service type. */
  readonly __type?: T;
}

/** Creates a typed service key. */
export function serviceKey<T>(name: string): ServiceKey<T> {
  return { name };
}

/** Services injected by the host and handed to every tool call through its context. */
export class ToolServices {
  readonly #values = new Map<string, unknown>();

  /** Provides a service; replaces any earlier value under the same key. */
  set<T>(key: ServiceKey<T>, value: T): this {
    this.#values.set(key.name, value);
    return this;
  }

  /** The service, or undefined when none was provided. */
  get<T>(key: ServiceKey<T>): T | undefined {
    return this.#values.get(key.name) as T | undefined;
  }

  /** The service; ends the call with UNSUPPORTED naming it when none was provided. */
  require<T>(key: ServiceKey<T>): T {
    if (!this.#values.has(key.name)) {
      throw new ToolError(
        ToolErrorCode.UNSUPPORTED,
        `This deployment has no ${key.name} configured.`,
        { hint: `Configure ${key.name} in toolsys.config.json or use another tool.` },
      );
    }
    return this.#values.get(key.name) as T;
  }
}
