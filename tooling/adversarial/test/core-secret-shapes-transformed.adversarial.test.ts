import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createToolExecutor,
  RiskAwareToolGate,
  renderResult,
  type ToolEvent,
  ToolPermissionManager,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import { createShellTools } from '@toolsys/core-tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * Credentials of kinds the scrubber did not know (Azure AccountKey, npm, Hugging Face, GitLab),
 * a private key that reaches the stream in several chunks, and tokens passed through `fold` or
 * `rev`: none of them reaches the model, in the result or in the streamed output.
 */

const TOKENS = {
  azure:
    'DefaultEndpointsProtocol=https;AccountName=prodstore;AccountKey=q8Zk2PxW9v0LrT5nYb3HcMa7JdUe1GsF4oKiNl6XwQzR/+==;EndpointSuffix=core.windows.net',
  npm: 'npm_Q8zK2pXw9V0lRt5NyB3hCmA7jDuE1gSf4OkI',
  huggingface: 'hf_Q8zK2pXw9V0lRt5NyB3hCmA7jDuE1gSf4O',
  gitlab: 'glpat-Q8zK2pXw9V0lRt5NyB3h',
};
const SECRET_PARTS = [
  'q8Zk2PxW9v0LrT5nYb3HcMa7JdUe1GsF4oKiNl6XwQzR',
  'Q8zK2pXw9V0lRt5NyB3hCmA7jDuE1gSf4OkI',
  'Q8zK2pXw9V0lRt5NyB3hCmA7jDuE1gSf4O',
  'Q8zK2pXw9V0lRt5NyB3h',
];
const GITHUB_TOKEN = 'ghp_Q8zK2pXw9V0lRt5NyB3hCmA7jDuE1gSf4OkI';
const KEY_LINES = [
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
  'MqEHnvxW3xz7s4zK1mTZ2w5VwUe2wBqDzYkEpkyJXk0aQ4V7Gm3cNd2Lr8x5PpQo',
];

let workspace: string;

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), 'toolsys-adv-secret-transforms-')));
  await writeFile(
    join(workspace, 'settings.env'),
    `${Object.entries(TOKENS)
      .map(([name, value]) => `${name}=${value}`)
      .join('\n')}\n`,
  );
  await writeFile(join(workspace, 'token.txt'), `${GITHUB_TOKEN}\n`);
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** Runs a command as the model would, collecting what is streamed and what is returned. */
async function run(command: string): Promise<{ streamed: string; result: string }> {
  const registry = new ToolRegistry();
  for (const tool of createShellTools({ workspaceRoot: workspace })) registry.register(tool);
  const confirm = async () => 'allow_once' as const;
  const executor = createToolExecutor({
    registry,
    gate: new RiskAwareToolGate(new ToolPermissionManager({ confirm })),
    confirm,
  });
  let streamed = '';
  const onEvent = (event: ToolEvent) => {
    if (event.type === 'output') streamed += event.text;
  };
  const result = await executor.execute('shell_execute', { command }, { onEvent });
  expect(result.ok, renderResult(result)).toBe(true);
  return {
    streamed,
    result: `${renderResult(result)}\n${JSON.stringify(result.ok ? result.data : result.error)}`,
  };
}

function expectHidden(text: string, secrets: readonly string[], label: string): void {
  for (const secret of secrets) expect(text, `${label}: ${secret}`).not.toContain(secret);
  expect(text, label).toContain('[redacted]');
}

describe('credentials the scrubber must recognise', () => {
  it('Azure AccountKey, npm, Hugging Face and GitLab tokens in a file', async () => {
    const { streamed, result } = await run('cat settings.env');
    expectHidden(result, SECRET_PARTS, 'result');
    expectHidden(streamed, SECRET_PARTS, 'streamed');
    expect(result).toContain('AccountName=prodstore');
  });

  it('a private key printed in several chunks, in the stream and in the result', async () => {
    const command = [
      `printf -- '-----BEGIN PRIVATE KEY-----\\n${KEY_LINES[0]?.slice(0, 20)}'`,
      'sleep 0.3',
      `printf '${KEY_LINES[0]?.slice(20)}\\n'`,
      'sleep 0.3',
      `printf '${KEY_LINES[1]}\\n'`,
      'sleep 0.3',
      `printf -- '-----END PRIVATE KEY-----\\nafter the key\\n'`,
    ].join('; ');
    const { streamed, result } = await run(command);
    const parts = [KEY_LINES[0]?.slice(0, 20), KEY_LINES[0]?.slice(20), KEY_LINES[1]] as string[];
    expectHidden(result, parts, 'result');
    expectHidden(streamed, parts, 'streamed');
    expect(streamed).toContain('after the key');
  });

  it('a token passed through fold -w 12', async () => {
    const { streamed, result } = await run('fold -w 12 token.txt');
    const pieces = GITHUB_TOKEN.slice(12).match(/.{1,12}/g) ?? [];
    expectHidden(result, pieces, 'result');
    expectHidden(streamed, pieces, 'streamed');
  });

  it('a token passed through rev', async () => {
    const { streamed, result } = await run('rev token.txt');
    const reversed = [...GITHUB_TOKEN].reverse().join('');
    expectHidden(result, [reversed, reversed.slice(0, 20)], 'result');
    expectHidden(streamed, [reversed, reversed.slice(0, 20)], 'streamed');
  });
});
