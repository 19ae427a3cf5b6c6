import { buildPackages } from '../src/build.js';
import { listPublicPackages, repoRoot } from '../src/workspace.js';

/** Builds every public package (and its dependencies) once, before the tarballs are packed. */
export default function setup(): void {
  buildPackages(repoRoot, listPublicPackages());
}
