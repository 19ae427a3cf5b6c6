import { describe, expect, it } from 'vitest';
import { parseDeploymentConfig } from './config.js';
import { loadScaleOut, scaleOutStatus } from './scale-out.js';

describe('config: state.redis and telemetry.otlp', () => {
  it('accepts a Redis URL with a prefix and an OTLP endpoint with headers', () => {
    const config = parseDeploymentConfig({
      state: {
        redis: { url: 'redis://10.0.0.5:6379/0', keyPrefix: 'team:', passwordEnv: 'REDIS_PW' },
      },
      telemetry: { otlp: { endpoint: 'http://127.0.0.1:4318', headers: { 'x-api-key': 'k' } } },
    });
    expect(config.state?.redis?.keyPrefix).toBe('team:');
    expect(config.telemetry?.otlp?.endpoint).toBe('http://127.0.0.1:4318');
  });

  it('refuses a Redis URL of another scheme, naming the field', () => {
    expect(() =>
      parseDeploymentConfig({ state: { redis: { url: 'http://10.0.0.5:6379' } } }),
    ).toThrow(/state\.redis\.url.*expected a redis:\/\/ or rediss:\/\/ URL/s);
  });

  it('refuses an unknown field under state.redis', () => {
    expect(() =>
      parseDeploymentConfig({ state: { redis: { url: 'redis://h:1', prefix: 'x' } } }),
    ).toThrow(/prefix/);
  });

  it('loads no Redis or OTLP piece when neither is configured', async () => {
    const scaleOut = await loadScaleOut({
      config: {},
      file: undefined,
      workspaceRoot: '.',
      dataDir: '.',
      configDir: '.',
    });
    expect(scaleOut).toEqual({});
    expect(scaleOutStatus(scaleOut)).toEqual({
      redis: { configured: false },
      otlp: { configured: false },
    });
  });

  it('passes state.redis.grantMaxStalenessMs on, and reports the invalidation subscriber', async () => {
    // Port 1 on loopback: nothing listens, so the replica runs on local state (no Redis needed).
    const scaleOut = await loadScaleOut({
      config: { state: { redis: { url: 'redis://127.0.0.1:1', grantMaxStalenessMs: 2000 } } },
      file: undefined,
      workspaceRoot: '.',
      dataDir: '.',
      configDir: '.',
    });
    try {
      expect(scaleOutStatus(scaleOut).redis).toMatchObject({
        configured: true,
        mode: 'local',
        grantMaxStalenessMs: 2000,
        subscriber: { state: 'connecting' },
      });
    } finally {
      await scaleOut.sharedState?.close();
    }
  });

  it('refuses a grant staleness window under 100 ms', () => {
    expect(() =>
      parseDeploymentConfig({ state: { redis: { url: 'redis://h:1', grantMaxStalenessMs: 10 } } }),
    ).toThrow(/state\.redis\.grantMaxStalenessMs/);
  });
});
