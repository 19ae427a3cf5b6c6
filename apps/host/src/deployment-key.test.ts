import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveDeploymentConfig } from './config.js';
import { DeploymentKey, DeploymentKeyError, loadDeploymentKey } from './deployment-key.js';

const dirs: string[] = [];
async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'toolsys-key-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('DeploymentKey', () => {
  const key = DeploymentKey.generate();

  it('opens what it sealed, for the same purpose only, until it expires', () => {
    const sealed = key.seal('request-state', { tool: 'write_file', round: 1 }, 60_000, 1_000);
    expect(key.open('request-state', sealed, 2_000)).toEqual({
      ok: true,
      payload: { tool: 'write_file', round: 1 },
      expiresAt: 61_000,
    });
    expect(key.open('other', sealed, 2_000)).toEqual({ ok: false, reason: 'tampered' });
    expect(key.open('request-state', sealed, 61_000)).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses a sealed value with any byte changed, a truncated one and junk', () => {
    const sealed = key.seal('p', { a: 1 }, 60_000);
    const bytes = Buffer.from(sealed, 'base64url');
    for (const index of [0, 12, 20, bytes.length - 1]) {
      const altered = Buffer.from(bytes);
      altered[index] = (altered[index] ?? 0) ^ 1;
      expect(key.open('p', altered.toString('base64url'))).toEqual({
        ok: false,
        reason: 'tampered',
      });
    }
    expect(key.open('p', sealed.slice(0, 20))).toEqual({ ok: false, reason: 'malformed' });
    expect(key.open('p', 'not base64url!')).toEqual({ ok: false, reason: 'malformed' });
    expect(key.open('p', '')).toEqual({ ok: false, reason: 'malformed' });
  });

  it('another key can neither open nor verify', () => {
    const other = DeploymentKey.generate();
    expect(other.open('p', key.seal('p', 1, 60_000))).toEqual({ ok: false, reason: 'tampered' });
    expect(other.verify('p', 'data', key.mac('p', 'data'))).toBe(false);
    expect(key.verify('p', 'data', key.mac('p', 'data'))).toBe(true);
    expect(key.verify('q', 'data', key.mac('p', 'data'))).toBe(false);
  });

  it('parses base64 and hex of 32 bytes and explains anything shorter', () => {
    const copy = DeploymentKey.parse(key.export(), 'test');
    expect(copy.mac('p', 'x')).toBe(key.mac('p', 'x'));
    const hex = DeploymentKey.parse('ab'.repeat(32), 'hex');
    expect(hex.mac('p', 'x')).not.toBe(key.mac('p', 'x'));
    expect(() => DeploymentKey.parse('c2hvcnQ=', '$TOOLSYS_DEPLOYMENT_KEY')).toThrow(
      DeploymentKeyError,
    );
    expect(() => DeploymentKey.parse('short', '$K')).toThrow(/openssl rand -base64 32/);
  });
});

describe('loadDeploymentKey', () => {
  it('takes the key from the environment, so replicas share it', async () => {
    const shared = DeploymentKey.generate().export();
    const dir = await dataDir();
    const config = (env: NodeJS.ProcessEnv) =>
      resolveDeploymentConfig({ dataDir: dir, server: { deploymentKeyEnv: 'MY_KEY' } }, { env });
    const a = await loadDeploymentKey(config({ MY_KEY: shared }));
    const b = await loadDeploymentKey(config({ MY_KEY: shared }));
    expect(a.open('p', b.seal('p', 'x', 60_000))).toMatchObject({ ok: true, payload: 'x' });
    await expect(loadDeploymentKey(config({ MY_KEY: 'weak' }))).rejects.toThrow(/\$MY_KEY/);
  });

  it('generates one key file, 0600, that every later load and a racing one read', async () => {
    const dir = await dataDir();
    const config = resolveDeploymentConfig({ dataDir: dir }, { env: {} });
    const keys = await Promise.all([1, 2, 3, 4].map(() => loadDeploymentKey(config)));
    const sealed = keys[0]?.seal('p', 'same', 60_000) ?? '';
    for (const k of keys) expect(k.open('p', sealed)).toMatchObject({ ok: true });
    const file = join(dir, 'deployment.key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim()).toBe(keys[0]?.export());
    const later = await loadDeploymentKey(config);
    expect(later.open('p', sealed)).toMatchObject({ ok: true });
  });

  it('tightens a key file left readable by others and refuses a corrupt one', async () => {
    const dir = await dataDir();
    const file = join(dir, 'deployment.key');
    await writeFile(file, `${DeploymentKey.generate().export()}\n`, { mode: 0o644 });
    await loadDeploymentKey(resolveDeploymentConfig({ dataDir: dir }, { env: {} }));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await writeFile(file, 'garbage');
    await expect(
      loadDeploymentKey(resolveDeploymentConfig({ dataDir: dir }, { env: {} })),
    ).rejects.toThrow(DeploymentKeyError);
  });
});
