import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { coreConfigSchema, toolPackage } from './core-package.js';

function environment(config: Record<string, unknown>, probes?: 'all' | 'deciding') {
  return {
    config: coreConfigSchema.parse(config),
    workspaceRoot: tmpdir(),
    dataDir: tmpdir(),
    configDir: tmpdir(),
    env: process.env,
    ...(probes ? { probes } : {}),
  };
}

describe('core detect', () => {
  // A sandbox path where nothing is shows whether the sandbox was probed.
  const broken = { shell: { sandboxExecutable: '/nonexistent/bwrap' } };

  it('probes the command sandbox for the full reason', async () => {
    const status = await toolPackage.detect(environment(broken));
    expect(status.enabled).toBe(true);
    expect(status.reason).toContain('no command sandbox, so every shell command asks');
    expect(status.reason).toContain('/nonexistent/bwrap');
  });

  it('answers a starting server at once: the sandbox never decides whether core is on', async () => {
    const status = await toolPackage.detect(environment(broken, 'deciding'));
    expect(status).toEqual({
      enabled: true,
      reason:
        'pure Node, always available; the command sandbox is probed on the first shell command',
    });
  });
});

describe('core config', () => {
  it('explains what allowPrivateNetwork takes when given one host as a string', () => {
    const parsed = coreConfigSchema.safeParse({ network: { allowPrivateNetwork: '127.0.0.1' } });
    expect(parsed.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      [
        'network.allowPrivateNetwork',
        'expected true, false, or a list of hosts, IPs and CIDR ranges, e.g. ["127.0.0.1"] (one host is a list of one)',
      ],
    ]);
    expect(coreConfigSchema.parse({ network: { allowPrivateNetwork: ['127.0.0.1'] } })).toEqual({
      network: { allowPrivateNetwork: ['127.0.0.1'] },
    });
  });
});
