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
