import { createRequire } from 'node:module';

/**
 * A loader for one dependency: the first call loads `specifier` (synchronously, so the callers'
 * signatures stay as they are) and later calls return the same module. Heavy dependencies go
 * through one of these, so importing a package loads none of them.
 *
 * `from` is the calling module's `import.meta.url`: the dependency is resolved from the package
 * that declares it, as a static import there would be (under pnpm's strict layout a package sees
 * only its own dependencies).
 *
 * @example
 * const semver = lazyModule<typeof import('semver')>('semver', import.meta.url);
 */
export function lazyModule<T>(specifier: string, from: string | URL): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= createRequire(from)(specifier) as T;
    return loaded;
  };
}
