import { describe, expect, it } from 'vitest';
import { describeGitHubFailure, type GitHubFailureContext } from './github-failure.js';

const TOKEN = 'ghp_0123456789abcdef0123456789abcdef0123';

function context(overrides: Partial<GitHubFailureContext> = {}): GitHubFailureContext {
  return {
    target: { what: 'file a.txt in o/r', repository: 'o/r' },
    tokenSource: 'GH_TOKEN',
    baseUrl: 'https://github.example/api/v3',
    signal: new AbortController().signal,
    redact: (text) => text.split(TOKEN).join('[redacted]'),
    now: () => 1_000_000,
    ...overrides,
  };
}

// Errors shaped like Octokit's RequestError (status, message, response); no server is needed to
// decide how a given answer is described.
const requestError = (status: number, data: unknown, headers: Record<string, string> = {}) =>
  Object.assign(new Error(String((data as { message?: string }).message ?? status)), {
    status,
    response: { status, headers, data },
  });

describe('describeGitHubFailure', () => {
  it('calls a bug in handling the answer an unexpected failure, not a network problem', () => {
    const failure = describeGitHubFailure(new TypeError(`x of undefined ${TOKEN}`), context());
    expect(failure.error).toMatchObject({
      code: 'EXECUTION_FAILED',
      retryable: false,
      message: 'Unexpected failure while handling file a.txt in o/r: x of undefined [redacted]',
    });
  });

  it('calls a request without an answer unreachable, naming the API root', () => {
    const failure = describeGitHubFailure(
      Object.assign(new Error('fetch failed'), { status: 500 }),
      context(),
    );
    expect(failure.error.message).toBe(
      'Could not reach GitHub at https://github.example/api/v3 for file a.txt in o/r: fetch failed',
    );
    expect(failure.error.retryable).toBe(true);
  });

  it('ends as cancelled when the call was aborted', () => {
    const controller = new AbortController();
    controller.abort();
    const failure = describeGitHubFailure(
      requestError(502, {}),
      context({ signal: controller.signal }),
    );
    expect(failure.error.details).toEqual({ cancelled: true });
  });

  it('reads a rate limit from a 403 whose message says so, without headers', () => {
    const failure = describeGitHubFailure(
      requestError(403, { message: 'API rate limit exceeded' }),
      context(),
    );
    expect(failure.error).toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 60_000 });
  });

  it('keeps the token out of GitHub validation messages', () => {
    const failure = describeGitHubFailure(
      requestError(422, { message: 'Validation Failed', errors: [{ message: `bad ${TOKEN}` }] }),
      context(),
    );
    expect(JSON.stringify(failure)).not.toContain(TOKEN);
    expect(failure.error.message).toBe(
      'GitHub rejected file a.txt in o/r (422 Validation Failed). bad [redacted]',
    );
  });
});
