import { describe, expect, it } from 'vitest';
import { parseDeploymentConfig } from './config.js';
import { loadScaleOut, scaleOutStatus } from './executor.js';

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
});
