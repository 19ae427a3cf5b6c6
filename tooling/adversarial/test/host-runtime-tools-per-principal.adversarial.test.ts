import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import { type HttpServer, scopedConfirm, serveHttp } from '@toolsys/host';
import { toolPackage as csMemPackage } from '@toolsys/platform-cs-mem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployHost, type HostDeployment } from './support/host.js';
import { callMessage, openSession, post, textOf } from './support/mcp-http-calls.js';

// Issue 32: shortcuts (and skills) defined at run time and the SQLite memory graph belong to the
// principal that made them. A second user of the same deployment can neither see nor call nor
// replace another's shortcut, and neither reads nor overwrites another's memory nodes.

const ALICE = 'rt-alice-secret-0123456789abcdef012345';
const BOB = 'rt-bob-secret-0123456789abcdef012345678';

let scratch: string;
let setup: HostDeployment;
let server: HttpServer;
const sessions: Record<string, string> = {};

/** Calls `tool` as the holder of `token` in its own session; the text the model reads. */
async function call(token: string, tool: string, args: Record<string, unknown> = {}) {
  sessions[token] ??= await openSession(server.mcpUrl, token);
  const reply = await post(server.mcpUrl, callMessage(tool, args), token, sessions[token]);
  expect(reply.status).toBe(200);
  return textOf(reply);
}

function shortcut(expression: string) {
  return {
    definition: {
      id: 'shortcut.answer',
      description: 'Computes the answer.',
      params: [],
      steps: [{ tool: 'calculate', args: { expression } }],
    },
  };
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-runtime-tools-'));
  setup = await deployHost(join(scratch, 'main'), {
    packages: [corePackage, csMemPackage],
    confirm: scopedConfirm,
    // What is under test is ownership, not confirmation.
    config: { permissions: { MEDIUM: 'allow' } },
  });
  server = await serveHttp(setup.host, {
    port: 0,
    tokens: [
      { name: 'alice', token: ALICE },
      { name: 'bob', token: BOB },
    ],
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await setup?.deployment.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('a shortcut defined at run time', { timeout: 60_000 }, () => {
  it('is answered to another principal exactly as a tool that does not exist', async () => {
    // What Bob is told before the shortcut exists is what he is told after.
    const before = await call(BOB, 'shortcut.answer');
    expect(before).toMatch(/NOT_FOUND/);
    expect(await call(ALICE, 'shortcut_define', shortcut('6*7'))).toMatch(
      /^Defined shortcut\.answer/,
    );
    expect(await call(ALICE, 'shortcut.answer')).toContain('42');
    expect(await call(BOB, 'shortcut.answer')).toBe(before);
    for (const [tool, args] of [
      ['tool_call', { id: 'shortcut.answer' }],
      ['shortcut_run', { id: 'shortcut.answer' }],
      ['tool_describe', { id: 'shortcut.answer' }],
    ] as const) {
      expect(await call(BOB, tool, args)).toMatch(/NOT_FOUND/);
    }
    expect(await call(BOB, 'tool_search', { query: 'answer shortcut' })).not.toContain(
      'shortcut.answer',
    );
    expect(await call(BOB, 'shortcut_list')).not.toContain('shortcut.answer');
    expect(await call(ALICE, 'shortcut_list')).toContain('shortcut.answer');
  });

  it('is never replaced by another principal defining the same id', async () => {
    await call(ALICE, 'shortcut_define', shortcut('6*7'));
    expect(await call(BOB, 'shortcut_define', shortcut('1+1'))).toMatch(
      /^Defined shortcut\.answer/,
    );
    expect(await call(ALICE, 'shortcut.answer')).toContain('42');
    expect(await call(BOB, 'shortcut.answer')).toContain('2');
    expect(await call(BOB, 'shortcut.answer')).not.toContain('42');
  });
});

describe('the memory graph', { timeout: 60_000 }, () => {
  it('is neither read nor overwritten by another principal', async () => {
    const secret = 'alice keeps the launch code in vault seven';
    await call(ALICE, 'memory_remember', { id: 'launch', text: secret });
    expect(await call(BOB, 'memory_search_nodes', { query: 'launch code' })).not.toContain('vault');
    await call(BOB, 'memory_remember', { id: 'launch', text: 'bob wrote over it' });
    expect(await call(ALICE, 'memory_search_nodes', { query: 'launch code' })).toContain(
      'vault seven',
    );
    expect(await call(ALICE, 'memory_search_nodes', { query: 'bob' })).not.toContain('bob wrote');
  });
});
