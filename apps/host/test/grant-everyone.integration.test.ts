import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import { type RedisProcess, startRedis } from '@toolsys/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { grantCommand } from '../src/commands/grant.js';
import { UsageError } from '../src/commands/types.js';
import { resolveDeploymentConfig } from '../src/config.js';
import { composeDeployment, type Deployment } from '../src/deployment.js';
import { scopedConfirm } from '../src/server/call-scope.js';
import type { Principal } from '../src/server/principal.js';

// An operator allows a tool always for every caller at run time with `toolsys grant --everyone`:
// kept in the deployment's state store (a file, or a real Redis shared by two replicas), read by
// running servers, audited, and undone with --revoke.

const BOB: Principal = { id: 'bob', kind: 'token', scopes: ['*'] };

let scratch: string;
let redis: RedisProcess;
const opened: Deployment[] = [];

beforeAll(async () => {
  redis = await startRedis();
}, 30_000);

afterEach(async () => {
  for (const deployment of opened.splice(0)) await deployment.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

afterAll(async () => {
  await redis?.stop();
});

/** A project folder with a config file; returns its path. */
function project(extra: Record<string, unknown> = {}): string {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-grant-'));
  mkdirSync(join(scratch, 'workspace'));
  const path = join(scratch, 'toolsys.config.json');
  writeFileSync(
    path,
    JSON.stringify({
      workspaceRoot: join(scratch, 'workspace'),
      dataDir: join(scratch, 'data'),
      ...extra,
    }),
  );
  return path;
}

/** A running server's deployment of that project (core tools; nobody can answer a question). */
async function serve(path: string): Promise<Deployment> {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const deployment = await composeDeployment(
    resolveDeploymentConfig(raw, { cwd: scratch, env: {} }),
    {
      packages: [corePackage],
      confirm: scopedConfirm,
    },
  );
  opened.push(deployment);
  return deployment;
}

async function grant(...args: string[]): Promise<string> {
  let out = '';
  const io = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: () => true },
    env: {},
    interactive: false,
  };
  expect(await grantCommand.run(args, io)).toBe(0);
  return out;
}

async function writeAsBob(deployment: Deployment): Promise<string> {
  await deployment.stack.everyone.list();
  const result = await deployment.executor.execute(
    'write_file',
    { path: 'b.txt', content: 'x' },
    { principal: BOB, sessionId: 'bob-session' },
  );
  return result.ok ? 'ok' : result.error.code;
}

describe('toolsys grant --everyone', { timeout: 60_000 }, () => {
  it('lets every caller run the tool unasked until revoked, each change audited', async () => {
    const path = project();
    const server = await serve(path);
    expect(await writeAsBob(server)).toBe('PERMISSION_DENIED');
    expect(await grant('write_file', '--everyone', '--config', path)).toMatch(
      /now runs for every caller/,
    );
    expect(await writeAsBob(server)).toBe('ok');
    expect(await grant('--list', '--config', path)).toBe('write_file\n');
    expect(await grant('write_file', '--everyone', '--revoke', '--config', path)).toMatch(
      /no longer/,
    );
    expect(await writeAsBob(server)).toBe('PERMISSION_DENIED');
    await server.stack.audit?.flush();
    const lines = readdirSync(join(scratch, 'data', 'audit'))
      .map((name) => readFileSync(join(scratch, 'data', 'audit', name), 'utf8'))
      .join('')
      .trim()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { tool: string; outcome: string; principal: { id: string } },
      );
    expect(
      lines.filter((line) => line.outcome.startsWith('grant-')).map((line) => line.outcome),
    ).toEqual(['grant-everyone', 'grant-everyone-revoked']);
    expect(lines.find((line) => line.outcome === 'grant-everyone')?.principal.id).toBe('local');
  });

  it('reaches every replica sharing Redis', async () => {
    const path = project({ state: { redis: { url: redis.url, keyPrefix: 'grant-test:' } } });
    const [a, b] = [await serve(path), await serve(path)];
    for (const replica of [a, b]) {
      await replica.stack.scaleOut.sharedState?.connection.waitUntilShared(5_000);
    }
    await grant('write_file', '--everyone', '--config', path);
    expect(await redis.cli('SMEMBERS', 'grant-test:perm:everyone')).toBe('write_file');
    expect(await writeAsBob(a)).toBe('ok');
    expect(await writeAsBob(b)).toBe('ok');
    await grant('write_file', '--everyone', '--revoke', '--config', path);
    expect(await writeAsBob(b)).toBe('PERMISSION_DENIED');
  });

  it('refuses a tool that is not one every caller sees, and a grant that names nobody', async () => {
    const path = project();
    const io = {
      stdout: { write: () => true },
      stderr: { write: () => true },
      env: {},
      interactive: false,
    };
    await expect(
      grantCommand.run(['shortcut.mine', '--everyone', '--config', path], io),
    ).rejects.toThrow(UsageError);
    await expect(grantCommand.run(['write_file', '--config', path], io)).rejects.toThrow(
      /--everyone/,
    );
  });
});
