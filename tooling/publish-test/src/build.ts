import { execFileSync } from 'node:child_process';
import type { WorkspacePackage } from './workspace.js';

/**
 * Builds the given packages and what they depend on with Turborepo (a cache hit when nothing
 * changed), so a tarball is never packed from a missing or stale `dist`.
 */
export function buildPackages(root: string, packages: readonly WorkspacePackage[]): void {
  const filters = packages.map((entry) => `--filter=${entry.name}...`);
  execFileSync('pnpm', ['exec', 'turbo', 'run', 'build', ...filters, '--output-logs=errors-only'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
  });
}
