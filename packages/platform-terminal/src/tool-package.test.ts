import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolExecutor, resolveMetadata, ToolRegistry } from '@toolsys/core-tool-registry';
import { afterEach, describe, expect, it } from 'vitest';
import { findPtyBackend } from './pty-backend.js';
import { findProgram } from './shells.js';
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

/** Every folder a test's contexts made (a test may make several), removed after it. */
const bases: string[] = [];

afterEach(async () => {
  for (const base of bases.splice(0)) await rm(base, { recursive: true, force: true });
});

async function context(mode: 'serve' | 'gate', config: Record<string, unknown> = {}) {
  const base = await mkdtemp(join(tmpdir(), 'terminal-package-'));
  bases.push(base);
  const registry = new ToolRegistry();
  return {
    config: terminalConfigSchema.parse(config),
    workspaceRoot: base,
    dataDir: join(base, 'data'),
    configDir: base,
    env: process.env,
    registry,
    executor: createToolExecutor({ registry }),
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
      sandbox: 'optional',
    });
    expect(terminalConfigSchema.safeParse({ sandbox: 'auto' }).success).toBe(false);
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

  it('names the shell sessions start, as a session picks it', async () => {
    const bash = await findProgram('bash', process.env);
    const status = await findPtyBackend(process.env);
    expect(status.reason).toBe(
      `PTY available; sessions run ${bash ?? (await findProgram('sh', process.env))}`,
    );
    const configured = await findPtyBackend(process.env, 'sh');
    expect(configured.reason).toBe(
      `PTY available; sessions run ${await findProgram('sh', process.env)}`,
    );
    const missing = await findPtyBackend(process.env, 'no-such-shell');
    expect(missing).toEqual({
      enabled: false,
      reason: 'the configured shell "no-such-shell" was not found',
    });
  });

  it('says when sessions that ask can run in the bubblewrap sandbox', async () => {
    const status = await toolPackage.detect(await context('serve'));
    expect(status.reason).toContain('sessions that ask run in the bubblewrap sandbox');
    const off = await toolPackage.detect(await context('serve', { sandbox: 'off' }));
    expect(off.reason).toContain('sandboxed sessions off');
  });

  it('is off with the reason when every session must be sandboxed and bubblewrap cannot start', async () => {
    const status = await toolPackage.detect(
      await context('serve', { sandbox: 'required', sandboxExecutable: '/nonexistent/bwrap' }),
    );
    expect(status.enabled).toBe(false);
    expect(status.reason).toBe(
      'every session must run in the sandbox (packages.platform-terminal.sandbox = "required"), but it cannot start: bubblewrap was configured at /nonexistent/bwrap, but nothing executable is there',
    );
    const optional = await toolPackage.detect(
      await context('serve', { sandboxExecutable: '/nonexistent/bwrap' }),
    );
    expect(optional.enabled).toBe(true);
    expect(optional.reason).toContain(
      'no sandboxed sessions (bubblewrap was configured at /nonexistent/bwrap, but nothing executable is there)',
    );
  });

  it('answers a starting server from the PTY probe alone, unless the sandbox decides', async () => {
    // A broken sandbox path shows whether the sandbox was probed.
    const broken = { sandboxExecutable: '/nonexistent/bwrap' };
    const quick = await toolPackage.detect({
      ...(await context('serve', broken)),
      probes: 'deciding',
    });
    expect(quick.enabled).toBe(true);
    expect(quick.reason).toContain('PTY available');
    expect(quick.reason).toContain('probed when a session needs them');
    expect(quick.reason).not.toContain('/nonexistent/bwrap');
    const required = await toolPackage.detect({
      ...(await context('serve', { ...broken, sandbox: 'required' })),
      probes: 'deciding',
    });
    expect(required.enabled).toBe(false);
    expect(required.reason).toContain('/nonexistent/bwrap');
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
      contribution.tools.map((tool) => [tool.id, resolveMetadata(tool.metadata)]),
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

  it('closes the terminals of a client session when that session ends, and only those', async () => {
    const serve = await context('serve');
    const contribution = await toolPackage.create(serve);
    serve.registry.registerAll(contribution.tools);
    const executor = createToolExecutor({ registry: serve.registry });
    try {
      const ids: string[] = [];
      for (const sessionId of ['client-a', 'client-b']) {
        const created = await executor.execute('terminal.create', {}, { sessionId });
        if (!created.ok) throw new Error(created.error.message);
        ids.push((created.data as { sessionId: string }).sessionId);
      }
      await contribution.endSession?.('client-a');
      const listed = async (sessionId: string) => {
        const result = await executor.execute('terminal.workspaces', {}, { sessionId });
        if (!result.ok) throw new Error(result.error.message);
        const data = result.data as { sessions: { sessionId: string }[] };
        return data.sessions.map((session) => session.sessionId);
      };
      expect(await listed('client-a')).toEqual([]);
      expect(await listed('client-b')).toEqual([ids[1]]);
    } finally {
      await contribution.dispose?.();
    }
  });
});
