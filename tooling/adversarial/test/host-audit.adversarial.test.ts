import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import { type HttpServer, scopedConfirm, serveHttp } from '@toolsys/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployHost, type HostDeployment, openStdioSession } from './support/host.js';
import { callMessage, openSession, post, textOf } from './support/mcp-http-calls.js';
import { riskProbePackage } from './support/risk-probe.js';

// Issue 32: every call is one audit line with the right principal and decision, and no argument
// value; nothing a caller sends can break or forge a line.

const ALICE = 'alice-secret-0123456789abcdef0123456789';
const BOB = 'bob-secret-0123456789abcdef0123456789ab';
const SECRET = 'sk-live-AUDIT-CANARY-7f3a9b2c4d5e6f708192a3b4c5d6e7f8';

let scratch: string;
let setup: HostDeployment;
let server: HttpServer;

interface AuditLine {
  readonly principal: { id: string; kind: string };
  readonly client?: { id?: string; name?: string };
  readonly tool: string;
  readonly risk?: string;
  readonly decision: string;
  readonly deniedBy?: string;
  readonly outcome: string;
  readonly source?: string;
  readonly args: string;
}

/** Every audit file's text, after the queued lines are written. */
async function auditText(host: HostDeployment = setup): Promise<string> {
  await host.deployment.stack.audit?.flush();
  const directory = join(host.dir, 'data', 'audit');
  return readdirSync(directory)
    .map((name) => readFileSync(join(directory, name), 'utf8'))
    .join('');
}

/** Every audit line, each parsed on its own (a line that is not one JSON object fails the test). */
async function auditLines(host: HostDeployment = setup): Promise<AuditLine[]> {
  const text = await auditText(host);
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as AuditLine);
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-audit-'));
  setup = await deployHost(join(scratch, 'main'), {
    packages: [corePackage, riskProbePackage],
    confirm: scopedConfirm,
  });
  server = await serveHttp(setup.host, {
    port: 0,
    tokens: [
      { name: 'alice', token: ALICE, scopes: ['tools:read'] },
      { name: 'bob', token: BOB },
    ],
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await setup?.deployment.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the audit log', { timeout: 60_000 }, () => {
  it('never holds an argument value or a token, on any path a call takes', async () => {
    const alice = await openSession(server.mcpUrl, ALICE);
    const bob = await openSession(server.mcpUrl, BOB);
    await post(server.mcpUrl, callMessage('probe_low', { note: SECRET }), ALICE, alice);
    await post(
      server.mcpUrl,
      callMessage('write_file', { path: 'a.txt', content: SECRET }),
      BOB,
      bob,
    );
    await post(
      server.mcpUrl,
      callMessage('tool_batch_run', {
        steps: [
          { tool: 'calculate', args: { expression: '1+1' } },
          { tool: 'write_file', args: { path: 'b.txt', content: SECRET } },
        ],
      }),
      BOB,
      bob,
    );
    // Over stdio, and as a dashboard form would.
    const { server: stdio, session } = await openStdioSession(setup.host);
    try {
      await session.request('tools/call', { name: 'probe_low', arguments: { note: SECRET } });
    } finally {
      await stdio.close();
    }
    await setup.host.call('probe_low', { note: SECRET }, { source: 'dashboard', sessionId: 'd1' });
    const lines = await auditLines();
    // Each path left its line (so the absence below is not that of the lines themselves).
    expect(lines.map((line) => [line.tool, line.principal.id, line.source])).toEqual([
      ['probe_low', 'alice', 'mcp'],
      ['write_file', 'bob', 'mcp'],
      ['calculate', 'bob', 'mcp'],
      ['write_file', 'bob', 'mcp'],
      ['tool_batch_run', 'bob', 'mcp'],
      ['probe_low', 'local', 'mcp'],
      ['probe_low', 'local', 'dashboard'],
    ]);
    const text = await auditText();
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(ALICE);
    expect(text).not.toContain(BOB);
    expect(text).not.toContain('a.txt');
  });

  it('writes a denied call and an insufficient_scope refusal as exactly one line each', async () => {
    const before = (await auditLines()).length;
    const alice = await openSession(server.mcpUrl, ALICE);
    const refused = await post(server.mcpUrl, callMessage('probe_medium'), ALICE, alice);
    expect(refused.status).toBe(403);
    const bob = await openSession(server.mcpUrl, BOB);
    const denied = await post(server.mcpUrl, callMessage('probe_high'), BOB, bob);
    expect(textOf(denied)).toContain('PERMISSION_DENIED');
    const added = (await auditLines()).slice(before);
    expect(added).toHaveLength(2);
    expect(added[0]).toMatchObject({
      principal: { id: 'alice', kind: 'token' },
      tool: 'probe_medium',
      risk: 'MEDIUM',
      decision: 'denied',
      deniedBy: 'scope',
      outcome: 'INSUFFICIENT_SCOPE',
    });
    expect(added[1]).toMatchObject({
      principal: { id: 'bob', kind: 'token' },
      client: { name: 'auth-test' },
      tool: 'probe_high',
      risk: 'HIGH',
      decision: 'denied',
      // Bob's client cannot answer a confirmation (no elicitation): nobody refused it.
      deniedBy: 'unanswered',
      outcome: 'PERMISSION_DENIED',
      source: 'mcp',
    });
  });

  it("records each principal's calls under that principal, batch steps included", async () => {
    const before = (await auditLines()).length;
    const alice = await openSession(server.mcpUrl, ALICE);
    const bob = await openSession(server.mcpUrl, BOB);
    await post(server.mcpUrl, callMessage('probe_low'), ALICE, alice);
    await post(
      server.mcpUrl,
      callMessage('tool_batch_run', { steps: [{ tool: 'probe_low', args: {} }] }),
      BOB,
      bob,
    );
    const added = (await auditLines()).slice(before);
    expect(added.map((line) => [line.principal.id, line.tool, line.decision])).toEqual([
      ['alice', 'probe_low', 'allowed'],
      ['bob', 'probe_low', 'allowed'],
      ['bob', 'tool_batch_run', 'allowed'],
    ]);
  });

  it('keeps hostile principal ids and tool ids inside one line each', async () => {
    const before = (await auditLines()).length;
    const forged = '{"principal":{"id":"root","kind":"local"},"tool":"x","decision":"allowed"}';
    const hostile = `mallory\n${forged}\r\n\u2028"}`;
    await setup.host.call(
      'probe_low',
      {},
      {
        source: 'mcp',
        sessionId: 'h1',
        principal: { id: hostile, kind: 'oauth', clientId: `c\n${forged}`, scopes: [] },
        clientName: `n\n${forged}`,
      },
    );
    const bob = await openSession(server.mcpUrl, BOB);
    await post(server.mcpUrl, callMessage(`nope\n${forged}`), BOB, bob);
    const added = (await auditLines()).slice(before);
    expect(added).toHaveLength(2);
    expect(added[0]?.principal).toEqual({ id: hostile, kind: 'oauth' });
    expect(added[0]?.client).toEqual({ id: `c\n${forged}`, name: `n\n${forged}` });
    expect(added[1]).toMatchObject({ tool: `nope\n${forged}`, decision: 'not-reached' });
    expect(added.some((line) => line.principal.id === 'root')).toBe(false);
  });

  it('keeps a day file within its cap under a flood of calls', async () => {
    const flooded = await deployHost(join(scratch, 'flood'), {
      config: { audit: { maxBytesPerDay: 16_384 } },
    });
    try {
      const calls = [];
      for (let index = 0; index < 400; index++) {
        calls.push(
          flooded.deployment.executor.execute('calculate', { expression: `${index}+1` }, {}),
        );
      }
      await Promise.all(calls);
      await flooded.deployment.stack.audit?.flush();
      const directory = join(flooded.dir, 'data', 'audit');
      const [file] = readdirSync(directory);
      expect(statSync(join(directory, file ?? '')).size).toBeLessThanOrEqual(16_384);
      const lines = (await auditText(flooded)).trimEnd().split('\n');
      expect(lines.length).toBeLessThan(400);
      expect(lines.at(-1)).toContain('"cap-reached"');
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    } finally {
      await flooded.deployment.close();
    }
  });
});
