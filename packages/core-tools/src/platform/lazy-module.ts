import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/**
 * A loader for one dependency: the first call loads `specifier` (synchronously, so the callers'
 * signatures stay as they are) and later calls return the same module. Heavy dependencies go
 * through one of these, so importing this package loads none of them.
 */
export function lazyModule<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= load(specifier) as T;
    return loaded;
  };
}
