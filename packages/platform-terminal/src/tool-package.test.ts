import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultToolExecutor, resolveMetadata, ToolRegistry } from '@toolsys/core-tool-registry';
import { afterEach, describe, expect, it } from 'vitest';
import { terminalConfigSchema, toolPackage } from './tool-package.js';

const SPEC_IDS = [
  'terminal.create',
  'terminal.run',
  'terminal.write',
  'terminal.observe',
  'terminal.snapshot',
  'terminal.wait',
  'terminal.resize',
  'terminal.signal',
  'terminal.close',
  'terminal.workspaces',
  'terminal.backends',
  'terminal.linux_bootstrap',
  'terminal.linux_status',
  'terminal.linux_packages',
  'terminal.linux_network',
  'terminal.ubuntu_install',
  'terminal.ubuntu.ensure',
  'terminal.ubuntu.status',
];

let base: string | undefined;

afterEach(async () => {
  if (base) await rm(base, { recursive: true, force: true });
  base = undefined;
});

async function context(mode: 'serve' | 'gate') {
  base = await mkdtemp(join(tmpdir(), 'terminal-package-'));
  const registry = new ToolRegistry();
  return {
    config: terminalConfigSchema.parse({}),
    workspaceRoot: base,
    dataDir: join(base, 'data'),
    configDir: base,
    env: process.env,
    registry,
    executor: new DefaultToolExecutor({ registry }),
    mode,
  } as const;
}

describe('toolPackage', () => {
  it('has the config key platform-terminal and a strict schema with defaults', () => {
    expect(toolPackage.key).toBe('platform-terminal');
    expect(terminalConfigSchema.parse({})).toMatchObject({
      maxSessions: 8,
      idleTimeoutMs: 1_800_000,
      ringBytes: 262_144,
      debianSuite: 'bookworm',
      ubuntuSuite: 'jammy',
    });
    const misspelt = terminalConfigSchema.safeParse({ maxSesions: 3 });
    expect(misspelt.success).toBe(false);
    expect(terminalConfigSchema.safeParse({ ringBytes: 10 }).success).toBe(false);
    expect(terminalConfigSchema.safeParse({ ubuntuMirror: 'not a url' }).success).toBe(false);
  });

  it('detects that a PTY can be opened here', async () => {
    const status = await toolPackage.detect(await context('serve'));
    expect(status.enabled).toBe(true);
    expect(status.reason).toContain('PTY available');
    expect(status.reason).toMatch(/proot and debootstrap found|not installed/);
  });

  it('contributes the 18 spec ids in gate mode without writing files or starting processes', async () => {
    const gate = await context('gate');
    const contribution = await toolPackage.create(gate);
    expect(contribution.tools.map((tool) => tool.id)).toEqual(SPEC_IDS);
    expect(existsSync(gate.dataDir)).toBe(false);
    await contribution.dispose?.();
  });

  it('declares read tools LOW and read-only, and keystrokes and command lines HIGH', async () => {
    const contribution = await toolPackage.create(await context('gate'));
    const metadata = new Map(
      contribution.tools.map((tool) => [tool.id, resolveMetadata(tool.id, tool.metadata)]),
    );
    for (const id of [
      'terminal.observe',
      'terminal.snapshot',
      'terminal.wait',
      'terminal.workspaces',
      'terminal.backends',
      'terminal.linux_status',
      'terminal.ubuntu.status',
    ]) {
      expect(metadata.get(id)).toMatchObject({ risk: 'LOW', annotations: { readOnlyHint: true } });
    }
    expect(metadata.get('terminal.write')?.risk).toBe('HIGH');
    expect(metadata.get('terminal.run')?.risk).toBe('HIGH');
    expect(metadata.get('terminal.close')?.annotations.destructiveHint).toBe(true);
    for (const entry of metadata.values()) expect(entry.category).toBe('terminal');
    await contribution.dispose?.();
  });
});
