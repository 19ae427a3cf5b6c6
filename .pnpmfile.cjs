/**
 * pnpm hooks for this workspace. `beforePacking` shapes the package.json that `pnpm pack` and
 * `pnpm publish` put in a tarball: the `@toolsys/source` export condition points at TypeScript
 * sources, which only the workspace has (tests and tools run from them), so it is dropped.
 */
const SOURCE_CONDITION = '@toolsys/source';

function withoutSourceCondition(target) {
  if (target === null || typeof target !== 'object') return target;
  if (Array.isArray(target)) return target.map(withoutSourceCondition);
  const kept = {};
  for (const [key, value] of Object.entries(target)) {
    if (key !== SOURCE_CONDITION) kept[key] = withoutSourceCondition(value);
  }
  return kept;
}

module.exports = {
  hooks: {
    beforePacking(manifest) {
      if (manifest.exports !== undefined)
        manifest.exports = withoutSourceCondition(manifest.exports);
      return manifest;
    },
  },
};
