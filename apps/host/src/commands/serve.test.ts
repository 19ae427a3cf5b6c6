import { describe, expect, it } from 'vitest';
import { parseDeploymentConfig } from '../config.js';

describe('server session limits in the config', () => {
  it('accepts positive whole numbers', () => {
    expect(
      parseDeploymentConfig({ server: { maxSessions: 5, sessionIdleSeconds: 60 } }).server,
    ).toEqual({ maxSessions: 5, sessionIdleSeconds: 60 });
  });

  it.each([0, -1, 1.5, '10', null])('refuses maxSessions %j by name', (value) => {
    expect(() => parseDeploymentConfig({ server: { maxSessions: value } }, 'c.json')).toThrow(
      /c\.json is invalid:\n {2}server\.maxSessions: /,
    );
  });
});

describe('audit, limits and introspection in the config', () => {
  it('accepts them and refuses unknown keys and bad values by name', () => {
    const parsed = parseDeploymentConfig({
      audit: { enabled: true, retainDays: 7, maxBytesPerDay: 1_048_576 },
      limits: { perPrincipal: { callsPerMinute: 60 } },
      server: {
        publicUrl: 'https://tools.example.com',
        auth: {
          issuer: 'https://idp.example.com/',
          introspection: { clientId: 'rs', clientSecretEnv: 'RS_SECRET' },
        },
      },
    });
    expect(parsed.audit).toEqual({ enabled: true, retainDays: 7, maxBytesPerDay: 1_048_576 });
    expect(parsed.server?.auth?.introspection).toEqual({
      clientId: 'rs',
      clientSecretEnv: 'RS_SECRET',
    });
    expect(() => parseDeploymentConfig({ audit: { retainDays: 0 } }, 'c.json')).toThrow(
      /audit\.retainDays/,
    );
    expect(() => parseDeploymentConfig({ audit: { maxBytesPerDay: 10 } }, 'c.json')).toThrow(
      /audit\.maxBytesPerDay/,
    );
    expect(() =>
      parseDeploymentConfig({ limits: { perPrincipal: { callsPerMinut: 5 } } }, 'c.json'),
    ).toThrow(/callsPerMinut/);
    expect(() =>
      parseDeploymentConfig(
        {
          server: {
            publicUrl: 'https://t.example.com',
            auth: { issuer: 'https://i.example.com/', introspection: { clientId: 'rs' } },
          },
        },
        'c.json',
      ),
    ).toThrow(/server\.auth\.introspection\.clientSecretEnv/);
  });
});
