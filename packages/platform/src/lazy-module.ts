import { createRequire } from 'node:module';

/** Created on the first load: where this file is installed is looked up only when needed. */
let load: NodeJS.Require | undefined;

/**
 * A loader for one dependency: the first call loads `specifier` (synchronously, so the callers'
 * signatures stay as they are) and later calls return the same module. Heavy dependencies go
 * through one of these, so importing this package loads none of them.
 */
export function lazyModule<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => {
    load ??= createRequire(import.meta.url);
    loaded ??= load(specifier) as T;
    return loaded;
  };
}
