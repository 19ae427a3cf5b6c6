import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import {
  composeDeployment,
  createStaticTokens,
  type Deployment,
  type HttpServer,
  resolveDeploymentConfig,
  scopedConfirm,
  serveHttp,
  ToolHost,
} from '@toolsys/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callMessage, openSession, post, textOf } from './support/mcp-http-calls.js';
import { riskProbePackage } from './support/risk-probe.js';

// Issue 32: named static tokens, one principal each, with or without scopes.

const ALICE = 'alice-secret-0123456789abcdef0123456789';
const BOB = 'bob-secret-0123456789abcdef0123456789ab';
const SHARED = 'shared-secret-0123456789abcdef01234567';

let scratch: string;
let deployment: Deployment;
let server: HttpServer;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-tokens-'));
  mkdirSync(join(scratch, 'workspace'), { recursive: true });
  const resolved = resolveDeploymentConfig(
    { workspaceRoot: join(scratch, 'workspace'), dataDir: join(scratch, 'data') },
    { cwd: scratch, env: {} },
  );
  deployment = await composeDeployment(resolved, {
    packages: [corePackage, riskProbePackage],
    confirm: scopedConfirm,
  });
  server = await serveHttp(new ToolHost(deployment, { warn: () => {} }), {
    port: 0,
    token: SHARED,
    tokens: [
      { name: 'alice', token: ALICE, scopes: ['tools:read'] },
      { name: 'bob', token: BOB },
    ],
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await deployment?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('named bearer tokens', { timeout: 60_000 }, () => {
  it('refuses no token, a wrong one, a prefix, an extension and another scheme with 401', async () => {
    for (const token of [undefined, 'nope', ALICE.slice(0, -1), `${ALICE}x`, ` ${ALICE}`]) {
      const reply = await post(server.mcpUrl, callMessage('probe_low'), token);
      expect({ token, status: reply.status }).toEqual({ token, status: 401 });
      expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    }
    const basic = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${ALICE}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(basic.status).toBe(401);
  });

  it('lets a token with tools:read run LOW tools and answers 403 naming tools:write for MEDIUM', async () => {
    const session = await openSession(server.mcpUrl, ALICE);
    expect(textOf(await post(server.mcpUrl, callMessage('probe_low'), ALICE, session))).toBe('ran');
    const medium = await post(server.mcpUrl, callMessage('probe_medium'), ALICE, session);
    expect(medium.status).toBe(403);
    expect(medium.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="tools:write"',
    );
  });

  it('lets a token without scopes call anything the permission policy allows', async () => {
    const session = await openSession(server.mcpUrl, BOB);
    const medium = await post(server.mcpUrl, callMessage('probe_medium'), BOB, session);
    expect(medium.status).toBe(200);
    expect(textOf(medium)).toContain('PERMISSION_DENIED');
  });

  it('keeps the single token working, as the principal "default"', async () => {
    const session = await openSession(server.mcpUrl, SHARED);
    expect(textOf(await post(server.mcpUrl, callMessage('probe_low'), SHARED, session))).toBe(
      'ran',
    );
  });

  it("gives tools the token's name as the call's principal", async () => {
    const session = await openSession(server.mcpUrl, ALICE);
    const reply = await post(server.mcpUrl, callMessage('probe_whoami'), ALICE, session);
    expect(JSON.parse(textOf(reply))).toEqual({
      id: 'alice',
      kind: 'token',
      scopes: ['tools:read'],
    });
    const shared = await openSession(server.mcpUrl, SHARED);
    const other = await post(server.mcpUrl, callMessage('probe_whoami'), SHARED, shared);
    expect(JSON.parse(textOf(other))).toMatchObject({ id: 'default', kind: 'token' });
  });

  it('calls without a token on tokenless loopback carry the principal local', async () => {
    const open = await serveHttp(new ToolHost(deployment, { warn: () => {} }), { port: 0 });
    try {
      const initialize = await post(open.mcpUrl, {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'local-test', version: '1.0.0' },
        },
      });
      const session = initialize.headers.get('mcp-session-id') ?? '';
      const reply = await post(open.mcpUrl, callMessage('probe_whoami'), undefined, session);
      expect(JSON.parse(textOf(reply))).toEqual({ id: 'local', kind: 'local', scopes: [] });
    } finally {
      await open.close();
    }
  });

  it('answers 404 to a session id presented with another principal’s token', async () => {
    const aliceSession = await openSession(server.mcpUrl, ALICE);
    for (const token of [BOB, SHARED]) {
      const reply = await post(server.mcpUrl, callMessage('probe_low'), token, aliceSession);
      expect(reply.status).toBe(404);
    }
    const ended = await fetch(server.mcpUrl, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${BOB}`, 'mcp-session-id': aliceSession },
    });
    expect(ended.status).toBe(404);
    expect(textOf(await post(server.mcpUrl, callMessage('probe_low'), ALICE, aliceSession))).toBe(
      'ran',
    );
  });

  it('keeps a scoped token off the dashboard call form', async () => {
    const refused = await fetch(`${server.url}/api/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
      body: '{"tool":"probe_low"}',
    });
    expect(refused.status).toBe(403);
    const allowed = await fetch(`${server.url}/api/calls`, {
      headers: { authorization: `Bearer ${BOB}` },
    });
    expect([401, 403]).not.toContain(allowed.status);
  });

  it('refuses duplicate names, duplicate secrets, empty secrets and bad names at start', () => {
    expect(() =>
      createStaticTokens([
        { name: 'a', token: 'x1' },
        { name: 'a', token: 'x2' },
      ]),
    ).toThrow(/used twice/);
    expect(() =>
      createStaticTokens([
        { name: 'a', token: 'same' },
        { name: 'b', token: 'same' },
      ]),
    ).toThrow(/same secret/);
    expect(() => createStaticTokens([{ name: 'a', token: '' }])).toThrow(/empty/);
    expect(() => createStaticTokens([{ name: 'a b', token: 'x' }])).toThrow(/must match/);
  });
});
