/**
 * Octokit is the heaviest part of this package (the REST client, its endpoint tables and the
 * throttling plugin). It is imported here, inside the function that builds the first client, and
 * nowhere at module level: importing `@toolsys/app-github` loads none of it, and a host lists the
 * GitHub tools long before any of them runs. The type-only import below is erased at build.
 */
import type { Octokit } from '@octokit/rest';

/** An Octokit instance as the tools use it. */
export type GitHubOctokit = Octokit;

/** Octokit could not be imported (a broken or partial install); the cause is kept for traces. */
export class OctokitLoadError extends Error {
  constructor(cause: unknown) {
    // The cause names host paths (where the package was looked for): it stays out of the message.
    super(
      'the Octokit packages it needs (@octokit/rest, @octokit/plugin-throttling) could not be loaded',
      { cause },
    );
    this.name = 'OctokitLoadError';
  }
}

/** Options of a new client: Octokit's, with `throttle` for the throttling plugin. */
export type GitHubOctokitOptions = NonNullable<ConstructorParameters<typeof Octokit>[0]>;

/**
 * Builds an Octokit with REST methods, pagination and the throttling plugin (which adds no
 * methods), importing Octokit on the first call. Node keeps the imported modules, so a later call
 * costs only the plugin composition; each client calls it once. Rejects with
 * {@link OctokitLoadError} when Octokit cannot be imported.
 */
export async function createThrottledOctokit(
  options: GitHubOctokitOptions,
): Promise<GitHubOctokit> {
  const ThrottledOctokit = await importThrottledOctokit().catch((error: unknown) => {
    throw new OctokitLoadError(error);
  });
  return new ThrottledOctokit(options);
}

async function importThrottledOctokit() {
  const [{ Octokit }, { throttling }] = await Promise.all([
    import('@octokit/rest'),
    import('@octokit/plugin-throttling'),
  ]);
  return Octokit.plugin(throttling);
}
