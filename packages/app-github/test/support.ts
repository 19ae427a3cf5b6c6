import {
  createToolExecutor,
  renderResult,
  type ToolExecutor,
  type ToolFailureError,
  ToolRegistry,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { expect } from 'vitest';
import { GitHubClient } from '../src/github-client.js';
import { RepositoryScope, type RepositoryScopeOptions } from '../src/repository-scope.js';
import { createGitHubTools } from '../src/tools/index.js';
import { FakeGitHub } from './fake-github.js';

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

/** The error of a failed result, or `undefined` for a success. */
export function errorOf(result: ToolResult): ToolFailureError | undefined {
  return result.ok ? undefined : result.error;
}

/** The repository every fake server starts with, as the owner and repo arguments of a call. */
export const HELLO_WORLD = { owner: 'octocat', repo: 'Hello-World' } as const;

/** Every GitHub tool id in registration order, and the ones left for a read-only token. */
export const ALL_TOOL_IDS = [
  'github_get_user',
  'github_list_repos',
  'github_read_file',
  'github_write_file',
  'github_create_issue',
  'github_list_issues',
  'github_search_code',
];
export const READ_TOOL_IDS = [
  'github_get_user',
  'github_list_repos',
  'github_read_file',
  'github_list_issues',
  'github_search_code',
];

/** Starts a fake GitHub holding {@link HELLO_WORLD} and connects the tools to it. */
export async function startFakeGitHub(): Promise<{ fake: FakeGitHub; github: Connected }> {
  const fake = await new FakeGitHub().start();
  fake.addRepo(`${HELLO_WORLD.owner}/${HELLO_WORLD.repo}`);
  return { fake, github: connect(fake) };
}

/** Stops the fake and fails the test if any request broke GitHub's OpenAPI description. */
export async function stopFakeGitHub(fake: FakeGitHub): Promise<void> {
  await fake.stop();
  expect(fake.violations).toEqual([]);
}
