import { describe, expect, it } from 'vitest';
import { ConfigError, parseDeploymentConfig, resolveDeploymentConfig } from './config.js';
import { replicaNameOf } from './replica-name.js';

const resolved = (server: Record<string, unknown> | undefined, env: NodeJS.ProcessEnv) =>
  resolveDeploymentConfig(server ? { server } : {}, { cwd: '/', env });

describe('the replica name', () => {
  it('comes from TOOLSYS_REPLICA_NAME, else server.replicaName, else none', () => {
    expect(replicaNameOf(resolved({ replicaName: 'replica1' }, {}))).toBe('replica1');
    expect(
      replicaNameOf(resolved({ replicaName: 'replica1' }, { TOOLSYS_REPLICA_NAME: 'replica2' })),
    ).toBe('replica2');
    expect(replicaNameOf(resolved(undefined, { TOOLSYS_REPLICA_NAME: '' }))).toBeUndefined();
    expect(replicaNameOf(resolved(undefined, {}))).toBeUndefined();
  });

  it('refuses a name that cannot stand in a handle, from either source', () => {
    expect(() => replicaNameOf(resolved(undefined, { TOOLSYS_REPLICA_NAME: 'a.b' }))).toThrow(
      ConfigError,
    );
    expect(() => parseDeploymentConfig({ server: { replicaName: 'two words' } }, 'c.json')).toThrow(
      /server\.replicaName/,
    );
  });
});
