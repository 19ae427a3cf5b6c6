import { cleanUntrustedLine } from '@toolsys/core-tool-registry/text';
import type { GitHubClient } from './github-client.js';

/** What the token may do, as far as GitHub tells. */
export interface WriteAccess {
  /** False only when GitHub says the token cannot write (a classic token without write scopes). */
  readonly canWrite: boolean;
  /** One line for doctor: why. */
  readonly reason: string;
}

const WRITE_SCOPES = new Set(['repo', 'public_repo']);

/**
 * Reads the scopes of a classic token from the `X-OAuth-Scopes` header of `GET /user`. A classic
 * token without `repo` or `public_repo` cannot create files or issues, so the write tools are not
 * offered. Fine-grained and app tokens send no such header and keep the write tools (GitHub
 * refuses what they may not do, and the tools say so). A probe that fails lets the tools through
 * (fail-open); the failure is the reason.
 */
export async function probeWriteAccess(
  client: GitHubClient,
  options: { timeoutMs?: number } = {},
): Promise<WriteAccess> {
  try {
    const octokit = await client.octokit();
    const response = await octokit.rest.users.getAuthenticated({
      request: { signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) },
    });
    const header = response.headers['x-oauth-scopes'];
    if (typeof header !== 'string') {
      return { canWrite: true, reason: 'token without classic scopes (fine-grained or app token)' };
    }
    // The header is outside text shown in doctor and package status: one clean line per scope.
    const scopes = header
      .split(',')
      .map((scope) => cleanUntrustedLine(scope.trim(), 60))
      .filter(Boolean)
      .slice(0, 30);
    if (scopes.some((scope) => WRITE_SCOPES.has(scope))) {
      return { canWrite: true, reason: `classic token with scopes ${scopes.join(', ')}` };
    }
    return {
      canWrite: false,
      reason: `classic token with scopes ${scopes.length > 0 ? scopes.join(', ') : '(none)'}: no repo or public_repo scope, so github_write_file and github_create_issue are off`,
    };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (status === 401) {
      return {
        canWrite: true,
        reason: `GitHub rejected the token from ${client.tokenSource ?? 'its source'} (401): renew it, every call will fail until then`,
      };
    }
    return {
      canWrite: true,
      reason: client.redact(
        `token scopes unknown (${typeof status === 'number' ? `GitHub answered ${status}` : 'GitHub not reachable'})`,
      ),
    };
  }
}
