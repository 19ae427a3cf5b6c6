import { describe, expect, it } from 'vitest';
import { approvedEnvironment, isCredentialName } from './approved-environment.js';

describe('approvedEnvironment', () => {
  it('keeps the allow-listed names and LC_*, and nothing else', () => {
    expect(
      approvedEnvironment({
        PATH: '/usr/bin:/bin',
        HOME: '/home/u',
        LC_ALL: 'C.UTF-8',
        PWD: '/work',
        S3_SK: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY',
        SOMETHING: 'plain',
        UNSET: undefined,
      }),
    ).toEqual({ PATH: '/usr/bin:/bin', HOME: '/home/u', LC_ALL: 'C.UTF-8', PWD: '/work' });
  });

  it('passes names the deployment gives, except credential names and values', () => {
    const env = {
      JAVA_HOME: '/opt/jdk',
      GOPATH: 'ghp_0123456789abcdefghijklmnopqrstuvwxyz',
      REDIS_PW: 'x',
      MYSQL_PWD: 'x',
      TOOLSYS_BEARER: 'x',
    };
    expect(
      approvedEnvironment(env, {
        pass: ['JAVA_HOME', 'GOPATH', 'REDIS_PW', 'MYSQL_PWD', 'TOOLSYS_BEARER'],
      }),
    ).toEqual({ JAVA_HOME: '/opt/jdk' });
  });
});

describe('isCredentialName', () => {
  it.each([
    'MYSQL_PWD',
    'REDIS_PW',
    'S3_SK',
    'DB_PASS',
    'AzureWebJobsStorage',
    'TOOLSYS_TOKEN',
    'TOOLSYS_BEARER',
    'NPM_TOKEN',
    'API_KEY',
  ])('%s reads as a credential', (name) => {
    expect(isCredentialName(name)).toBe(true);
  });

  it.each(['PWD', 'JAVA_HOME', 'GOPATH', 'PASSAGE_DIR'])('%s does not', (name) => {
    expect(isCredentialName(name)).toBe(false);
  });
});
