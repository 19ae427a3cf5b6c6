import {
  createToolExecutor,
  renderResult,
  type ToolExecutor,
  ToolRegistry,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { GitHubClient } from '../src/github-client.js';
import { RepositoryScope, type RepositoryScopeOptions } from '../src/repository-scope.js';
import { createGitHubTools } from '../src/tools/index.js';
import type { FakeGitHub } from './fake-github.js';

/** Options for {@link connect}. */
export interface ConnectOptions {
  token?: string;
  scope?: RepositoryScopeOptions;
  readOnly?: boolean;
  maxFileBytes?: number;
  baseUrl?: string;
  logs?: string[];
}

/** A registry of the GitHub tools talking to the fake, and a helper to call them. */
export interface Connected {
  client: GitHubClient;
  executor: ToolExecutor;
  call(id: string, args?: Record<string, unknown>): Promise<ToolResult>;
}

/** Builds the tools against a fake server (secondary-limit waits shortened to 10 ms a second). */
export function connect(fake: FakeGitHub, options: ConnectOptions = {}): Connected {
  const client = new GitHubClient({
    token: async () => ({ token: options.token ?? fake.token, source: 'GITHUB_TOKEN' }),
    baseUrl: options.baseUrl ?? fake.baseUrl,
    retryAfterBaseMs: 10,
    log: (level, message) => options.logs?.push(`${level}: ${message}`),
  });
  const registry = new ToolRegistry();
  registry.registerAll(
    createGitHubTools({
      client,
      scope: new RepositoryScope(options.scope),
      ...(options.readOnly ? { readOnly: true } : {}),
      ...(options.maxFileBytes ? { maxFileBytes: options.maxFileBytes } : {}),
    }),
  );
  const executor = createToolExecutor({ registry });
  return {
    client,
    executor,
    call: (id, args = {}) => executor.execute(id, args),
  };
}

/** The result's text as the model reads it. */
export function text(result: ToolResult): string {
  return renderResult(result);
}

/** The data of a successful result; fails the test with the rendered error otherwise. */
export function dataOf<T = Record<string, unknown>>(result: ToolResult): T {
  if (!result.ok) throw new Error(`expected success, got ${renderResult(result)}`);
  return result.data as T;
}
