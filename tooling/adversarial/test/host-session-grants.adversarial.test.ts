import { type ChildProcessWithoutNullStreams, execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineTool, successResult, ToolHints, ToolSchema } from '@toolsys/core-tool-registry';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import { type Deployment, scopedConfirm, serveHttp, type ToolHost } from '@toolsys/host';
import { sessionDigest } from '@toolsys/state-redis';
import {
  initializeRequest,
  type RedisProcess,
  startRedis,
  stopProcess,
} from '@toolsys/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  definePackageOf,
  deployHost,
  firstText,
  openStdioSession,
  postMcp,
} from './support/host.js';
import { HOST_CLI, HOST_DIR, HOST_NODE_ARGS } from './support/stdio-mcp-session.js';

// Issue item 8 (and 9's session plumbing): grants answered in one session must not reach another
// user's session, a later CLI run, or a replica with another policy; configured allow-lists stay
// on their replica; a session's grants leave Redis when it ends.

let redis: RedisProcess;
let scratch: string;
const children: ChildProcessWithoutNullStreams[] = [];
const deployments: Deployment[] = [];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A folder with a workspace and a config sharing the test's Redis under `prefix`. */
function project(name: string, prefix: string, extra: Record<string, unknown> = {}): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'workspace'), { recursive: true });
  writeFileSync(
    join(dir, 'toolsys.config.json'),
    JSON.stringify({
      workspaceRoot: './workspace',
      state: { redis: { url: redis.url, keyPrefix: prefix } },
      ...extra,
    }),
  );
  return dir;
}

/** Tools that tell what the host gave them: the session id, and which sessions ended. */
function probePackage() {
  const ended: string[] = [];
  const entry = definePackageOf({
    name: '@toolsys/adversarial-session-probe',
    key: 'probe',
    description: 'reports the session id tools see',
    tools: [
      defineTool({
        id: 'probe_session',
        description: 'Returns the session id of the call.',
        inputSchema: ToolSchema.empty(),
        metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
        execute: (_args, context) => successResult(context.sessionId),
      }),
    ],
    endSession: (sessionId) => {
      ended.push(sessionId);
    },
  });
  return { entry, ended };
}

/** Composes a deployment in-process from a config object, as `serve` does. */
async function deploy(
  dir: string,
  config: Record<string, unknown>,
  probe = probePackage(),
): Promise<{ deployment: Deployment; host: ToolHost; ended: string[] }> {
  const { deployment, host } = await deployHost(dir, {
    config,
    packages: [corePackage, probe.entry],
    confirm: scopedConfirm,
  });
  deployments.push(deployment);
  return { deployment, host, ended: probe.ended };
}

function runCli(
  cwd: string,
  args: string[],
  options: { terminalInput?: string } = {},
): Promise<{ code: number; stdout: string }> {
  const env = { ...process.env, INIT_CWD: cwd, TOOLSYS_DATA_DIR: join(cwd, 'data'), NO_COLOR: '1' };
  const argv = [process.execPath, ...HOST_NODE_ARGS, HOST_CLI, ...args];
  return new Promise((done) => {
    const child =
      options.terminalInput === undefined
        ? execFile(
            argv[0] as string,
            argv.slice(1),
            { cwd: HOST_DIR, env, timeout: 60_000 },
            finish,
          )
        : execFile(
            'script',
            [
              '--quiet',
              '--return',
              '--command',
              argv.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' '),
              '/dev/null',
            ],
            { cwd: HOST_DIR, env, timeout: 60_000 },
            finish,
          );
    function finish(error: Error | null, stdout: string, stderr: string) {
      const code = error ? Number((error as { code?: unknown }).code ?? 1) : 0;
      done({ code, stdout: `${stdout}${stderr}`.replaceAll('\r\n', '\n') });
    }
    if (options.terminalInput !== undefined) {
      // The answer is typed once the prompt is up (the terminal echoes it back).
      let sent = false;
      child.stdout?.on('data', (chunk: Buffer) => {
        if (!sent && chunk.toString('utf8').includes('Allow?')) {
          sent = true;
          child.stdin?.write(options.terminalInput);
        }
      });
    } else child.stdin?.end();
  });
}

beforeAll(async () => {
  redis = await startRedis();
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-grants-'));
});

afterEach(async () => {
  for (const child of children.splice(0)) await stopProcess(child, { signal: 'SIGKILL' });
  for (const deployment of deployments.splice(0)) await deployment.close();
});

afterAll(async () => {
  await redis?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('grants stay with the session and user that gave them (item 8)', {
  timeout: 120_000,
}, () => {
  it('another user’s stdio server does not inherit "allow for this session"', async () => {
    const shared = { state: { redis: { url: redis.url, keyPrefix: 'stdio:' } } };
    const aliceHost = await deploy(join(scratch, 'alice'), shared);
    const malloryDir = join(scratch, 'mallory');
    const malloryHost = await deploy(malloryDir, shared);
    const alice = await openStdioSession(aliceHost.host, 'allow_session');
    const mallory = await openStdioSession(malloryHost.host);
    const allowed = await alice.session.callTool('write_file', { path: 'a.txt', content: 'a' });
    expect(allowed.isError).toBe(false);
    expect(alice.session.elicitations).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await mallory.session.callTool('write_file', { path: 'm.txt', content: 'm' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('PERMISSION_DENIED');
    expect(existsSync(join(malloryDir, 'workspace', 'm.txt'))).toBe(false);
    await alice.server.close();
    await mallory.server.close();
  });

  it('a later non-interactive `toolsys call` does not inherit an earlier run’s session answer', async () => {
    // Only core: the runs start faster, and write_file is core's.
    const off = { enabled: false };
    const dir = project('cli-runs', 'cli:', {
      packages: {
        'mcp-client': off,
        'cs-mem': off,
        'platform-terminal': off,
        'app-github': off,
        'platform-android': off,
        'app-browser': off,
      },
    });
    const asked = await runCli(dir, ['call', 'write_file', '{"path":"asked.txt","content":"a"}'], {
      terminalInput: 's\r',
    });
    expect(asked.stdout).toContain('Allow?');
    expect(existsSync(join(dir, 'workspace', 'asked.txt'))).toBe(true);
    const later = await runCli(dir, ['call', 'write_file', '{"path":"later.txt","content":"b"}']);
    expect(later.code).toBe(1);
    expect(later.stdout).toContain('PERMISSION_DENIED');
    expect(existsSync(join(dir, 'workspace', 'later.txt'))).toBe(false);
  });

  it('one replica’s configured alwaysAllow never reaches a replica with HIGH=ask', async () => {
    const shared = { state: { redis: { url: redis.url, keyPrefix: 'allow:' } } };
    const lenient = await deploy(join(scratch, 'lenient'), {
      ...shared,
      permissions: { alwaysAllow: ['delete_file'] },
    });
    const strictDir = join(scratch, 'strict');
    const strict = await deploy(strictDir, { ...shared, permissions: { HIGH: 'ask' } });
    writeFileSync(join(strictDir, 'workspace', 'keep.txt'), 'precious');
    // The lenient replica uses its allow-list (and has had every chance to push it).
    writeFileSync(join(scratch, 'lenient', 'workspace', 'gone.txt'), 'x');
    const own = await lenient.deployment.executor.execute(
      'delete_file',
      { path: 'gone.txt' },
      { sessionId: 'lenient-session' },
    );
    expect(own.ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const result = await strict.deployment.executor.execute(
      'delete_file',
      { path: 'keep.txt' },
      { sessionId: 'strict-session' },
    );
    expect(result.ok).toBe(false);
    expect(existsSync(join(strictDir, 'workspace', 'keep.txt'))).toBe(true);
    expect(await redis.cli('SMEMBERS', 'allow:perm:always')).toBe('');
  });

  it('"allow always" answered on one deployment does not reach a replica with another policy', async () => {
    const shared = { state: { redis: { url: redis.url, keyPrefix: 'always:' } } };
    const first = await deploy(join(scratch, 'always-a'), shared);
    const sameDir = join(scratch, 'always-same');
    const same = await deploy(sameDir, shared);
    const otherDir = join(scratch, 'always-other');
    const other = await deploy(otherDir, { ...shared, permissions: { LOW: 'ask' } });
    const { server, session } = await openStdioSession(first.host, 'allow_always');
    expect((await session.callTool('write_file', { path: 'a.txt', content: 'a' })).isError).toBe(
      false,
    );
    await server.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The same deployment on another replica honours the user's answer, as one replica would.
    const again = await same.deployment.executor.execute(
      'write_file',
      { path: 'same.txt', content: 's' },
      { sessionId: 'same-session' },
    );
    expect(again.ok).toBe(true);
    const elsewhere = await other.deployment.executor.execute(
      'write_file',
      { path: 'other.txt', content: 'o' },
      { sessionId: 'other-session' },
    );
    expect(elsewhere.ok).toBe(false);
    expect(existsSync(join(otherDir, 'workspace', 'other.txt'))).toBe(false);
  });

  it('a stdio session has a fresh random id; its grants leave Redis when it closes', async () => {
    const replica = await deploy(join(scratch, 'stdio-end'), {
      state: { redis: { url: redis.url, keyPrefix: 'end:' } },
      server: { sessionIdleSeconds: 600 },
    });
    const one = await openStdioSession(replica.host, 'allow_session');
    const two = await openStdioSession(replica.host);
    const idOne = (await one.session.callTool('probe_session', {})).text;
    const idTwo = (await two.session.callTool('probe_session', {})).text;
    expect(idOne).toMatch(/^stdio-/);
    expect(idOne.slice('stdio-'.length)).toMatch(UUID);
    expect(idTwo).not.toBe(idOne);
    expect((await one.session.callTool('write_file', { path: 'x', content: 'x' })).isError).toBe(
      false,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const key = `end:perm:session:${sessionDigest(idOne)}`;
    expect(await redis.cli('SMEMBERS', key)).toBe('write_file');
    // The grant lives no longer than the session's idle limit, not a day.
    const ttl = Number(await redis.cli('PTTL', key));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600_000);
    one.session.end();
    await one.server.closed;
    for (let wait = 0; wait < 50 && (await redis.cli('EXISTS', key)) !== '0'; wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await redis.cli('EXISTS', key)).toBe('0');
    expect(replica.ended).toContain(idOne);
    expect(replica.ended).not.toContain(idTwo);
    await two.server.close();
  });

  it('an HTTP session’s tools see its own random id, and every package hears when it ends', async () => {
    const replica = await deploy(join(scratch, 'http'), {});
    const http = await serveHttp(replica.host, { host: '127.0.0.1', port: 0 });
    try {
      const sessionIds: string[] = [];
      const seen: string[] = [];
      for (let index = 0; index < 2; index += 1) {
        const init = await postMcp(http.mcpUrl, initializeRequest({ clientVersion: '1' }));
        const sessionId = init.sessionId;
        expect(sessionId).toMatch(UUID);
        sessionIds.push(sessionId);
        await postMcp(
          http.mcpUrl,
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { sessionId },
        );
        const call = await postMcp(
          http.mcpUrl,
          {
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/call',
            params: { name: 'probe_session', arguments: {} },
          },
          { sessionId },
        );
        seen.push(firstText(call.message));
      }
      expect(seen).toEqual(sessionIds.map((id) => `mcp-${id}`));
      await fetch(http.mcpUrl, {
        method: 'DELETE',
        headers: { 'mcp-session-id': sessionIds[0] ?? '' },
      }).then((response) => response.text());
      for (let wait = 0; wait < 50 && replica.ended.length === 0; wait += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(replica.ended).toEqual([`mcp-${sessionIds[0]}`]);
    } finally {
      await http.close();
    }
  });
});
