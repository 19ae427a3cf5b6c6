import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfirmationDecision, ConfirmationRequest } from '@toolsys/core-tool-registry';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import {
  composeDeployment,
  createOAuthResource,
  type Deployment,
  type HttpServer,
  resolveDeploymentConfig,
  serveHttp,
  ToolHost,
} from '@toolsys/host';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from './support/authorization-server.js';
import { callMessage, openSession, post, textOf } from './support/mcp-http-calls.js';
import { riskProbePackage } from './support/risk-probe.js';

// Issue 32: two principals on one deployment, over real HTTP. One user's "always" answer, session
// grant or note never reaches another. Two named tokens and one OAuth subject (from a real
// authorization server) call the same deployment through two servers. The person answering each
// question is scripted per principal; everything else is the real host.

const PUBLIC_URL = 'https://tools.example.test';
const AUDIENCE = `${PUBLIC_URL}/mcp`;
const ALICE = 'alice-grants-0123456789abcdef0123456789';
const BOB = 'bob-grants-0123456789abcdef0123456789ab';

let scratch: string;
let issuer: AuthorizationServer;
let deployment: Deployment;
let tokens: HttpServer;
let oauth: HttpServer;
/** What each principal's person answers, in order (`<kind>:<id>` → answers). */
const answers = new Map<string, ConfirmationDecision[]>();
/** The questions asked, as `<kind>:<id> <tool>`. */
const asked: string[] = [];

async function answer(request: ConfirmationRequest): Promise<ConfirmationDecision> {
  const who = `${request.principal?.kind}:${request.principal?.id}`;
  asked.push(`${who} ${request.toolId}`);
  return answers.get(who)?.shift() ?? 'deny';
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-grants-'));
  mkdirSync(join(scratch, 'workspace'), { recursive: true });
  issuer = await startAuthorizationServer({
    audience: AUDIENCE,
    scopes: ['tools:read', 'tools:write', 'tools:admin'],
  });
  const resolved = resolveDeploymentConfig(
    { workspaceRoot: join(scratch, 'workspace'), dataDir: join(scratch, 'data') },
    { cwd: scratch, env: {} },
  );
  deployment = await composeDeployment(resolved, {
    packages: [corePackage, riskProbePackage],
    confirm: answer,
  });
  const host = new ToolHost(deployment, { warn: () => {} });
  tokens = await serveHttp(host, {
    port: 0,
    tokens: [
      { name: 'alice', token: ALICE },
      { name: 'bob', token: BOB },
    ],
  });
  const auth = createOAuthResource({
    issuer: issuer.issuer,
    audience: AUDIENCE,
    publicUrl: PUBLIC_URL,
  });
  oauth = await serveHttp(host, { port: 0, auth });
}, 60_000);

afterAll(async () => {
  await tokens?.close();
  await oauth?.close();
  await deployment?.close();
  await issuer?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

beforeEach(() => {
  answers.clear();
  asked.length = 0;
});

/** Calls `tool` in a session of this token's principal; returns the text the model reads. */
async function call(
  url: string,
  token: string,
  session: string,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  return textOf(await post(url, callMessage(tool, args), token, session));
}

describe('grants belong to the principal who gave them', { timeout: 60_000 }, () => {
  it('never lets one user\'s "always" answer run the tool unasked for another user', async () => {
    answers.set('token:alice', ['allow_always']);
    const alice = await openSession(tokens.mcpUrl, ALICE);
    expect(await call(tokens.mcpUrl, ALICE, alice, 'probe_medium')).toBe('ran');
    const aliceAgain = await openSession(tokens.mcpUrl, ALICE);
    expect(await call(tokens.mcpUrl, ALICE, aliceAgain, 'probe_medium')).toBe('ran');

    const bob = await openSession(tokens.mcpUrl, BOB);
    expect(await call(tokens.mcpUrl, BOB, bob, 'probe_medium')).toContain('PERMISSION_DENIED');
    expect(asked).toEqual(['token:alice probe_medium', 'token:bob probe_medium']);
  });

  it('keeps a token named like an OAuth subject apart from that subject', async () => {
    answers.set('oauth:alice', ['allow_always']);
    const jwt = await issuer.issue('alice', ['tools:read', 'tools:write']);
    const viaOAuth = await openSession(oauth.mcpUrl, jwt);
    expect(await call(oauth.mcpUrl, jwt, viaOAuth, 'probe_medium')).toBe('ran');
    // The named token "alice" answered "always" in the test before; the OAuth subject did not.
    answers.set('token:bob', ['allow_session']);
    const bob = await openSession(tokens.mcpUrl, BOB);
    expect(await call(tokens.mcpUrl, BOB, bob, 'probe_medium')).toBe('ran');
    expect(asked).toEqual(['oauth:alice probe_medium', 'token:bob probe_medium']);
  });

  it('keeps a session grant to its own session: a new session of the same user asks again', async () => {
    answers.set('token:bob', ['allow_session', 'deny']);
    const first = await openSession(tokens.mcpUrl, BOB);
    expect(await call(tokens.mcpUrl, BOB, first, 'probe_high')).toBe('ran');
    expect(await call(tokens.mcpUrl, BOB, first, 'probe_high')).toBe('ran');
    const second = await openSession(tokens.mcpUrl, BOB);
    expect(await call(tokens.mcpUrl, BOB, second, 'probe_high')).toContain('PERMISSION_DENIED');
    // Alice presenting Bob's session id reaches neither his session nor its grant.
    const stolen = await post(tokens.mcpUrl, callMessage('probe_high'), ALICE, first);
    expect(stolen.status).toBe(404);
    expect(asked).toEqual(['token:bob probe_high', 'token:bob probe_high']);
  });
});

describe('file memory per principal', { timeout: 60_000 }, () => {
  it('never lets one user read, overwrite or forget another user’s note', async () => {
    const alice = await openSession(tokens.mcpUrl, ALICE);
    const bob = await openSession(tokens.mcpUrl, BOB);
    const url = tokens.mcpUrl;
    await call(url, ALICE, alice, 'memorize', { key: 'plan', content: 'Alice: ship Friday.' });
    expect(await call(url, BOB, bob, 'recall', { key: 'plan' })).toContain('NOT_FOUND');
    expect(await call(url, BOB, bob, 'recall', { query: 'ship' })).not.toContain('Alice');
    await call(url, BOB, bob, 'memorize', { key: 'plan', content: 'Bob was here.' });
    await call(url, BOB, bob, 'forget', { key: 'plan' });
    const recalled = await call(url, ALICE, alice, 'recall', { key: 'plan' });
    expect(recalled).toContain('Alice: ship Friday.');
    expect(recalled).not.toContain('Bob');
  });

  it('keeps the OAuth subject "alice" and the token "alice" apart, and no id in a folder name', async () => {
    const jwt = await issuer.issue('alice', ['tools:read']);
    const viaOAuth = await openSession(oauth.mcpUrl, jwt);
    await call(oauth.mcpUrl, jwt, viaOAuth, 'memorize', { key: 'oauth-only', content: 'OAuth' });
    const viaToken = await openSession(tokens.mcpUrl, ALICE);
    expect(await call(tokens.mcpUrl, ALICE, viaToken, 'recall', { key: 'oauth-only' })).toContain(
      'NOT_FOUND',
    );
    const folders = readdirSync(join(scratch, 'data', 'notes', 'principals'));
    expect(folders.length).toBeGreaterThanOrEqual(2);
    for (const folder of folders) expect(folder).toMatch(/^[0-9a-f]{32}$/);
  });
});
