import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness.js';

// Opt-in: builds a real minimal Debian rootfs with debootstrap from the Debian archive (about
// 30 s and 200 MB the first time), cached in TOOLSYS_TEST_ROOTFS_CACHE (default under the temp
// dir) so later runs reuse it. Run with TOOLSYS_TEST_DEBOOTSTRAP=1.
const enabled = process.env.TOOLSYS_TEST_DEBOOTSTRAP === '1';
const cacheDir =
  process.env.TOOLSYS_TEST_ROOTFS_CACHE ?? join(tmpdir(), 'toolsys-terminal-rootfs-cache');

let harness: Harness;

describe.skipIf(!enabled)('a real Debian rootfs (debootstrap + proot)', () => {
  beforeAll(async () => {
    harness = await createHarness({ rootfs: { baseDir: cacheDir } });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it('bootstraps in the background, reports progress, and becomes ready', async () => {
    const started = await harness.data<{ state: string }>('terminal.linux_bootstrap', {});
    expect(['bootstrapping', 'ready']).toContain(started.state);
    const phases = new Set<string>();
    for (let attempt = 0; attempt < 600; attempt += 1) {
      const status = await harness.data<{ state: string; phase: string | null }>(
        'terminal.linux_status',
        {},
      );
      if (status.phase) phases.add(status.phase);
      if (status.state !== 'bootstrapping') break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const status = await harness.data<{ state: string; osName: string; logTail: string[] }>(
      'terminal.linux_status',
      {},
    );
    expect(status.state, status.logTail.join('\n')).toBe('ready');
    expect(status.osName).toContain('Debian GNU/Linux');
  }, 900_000);

  it('runs cat /etc/os-release in a proot session inside it', async () => {
    const { sessionId } = await harness.data<{ sessionId: string }>('terminal.create', {
      backend: 'proot',
    });
    const run = await harness.data<{ output: string; exitCode: number }>('terminal.run', {
      sessionId,
      command: 'cat /etc/os-release',
    });
    expect(run.exitCode).toBe(0);
    expect(run.output).toContain('ID=debian');
  }, 60_000);

  it('lists its packages and checks the network from inside', async () => {
    const list = await harness.data<{ packages: { name: string }[] }>('terminal.linux_packages', {
      action: 'list',
      packages: ['bash'],
    });
    expect(list.packages.map((entry) => entry.name)).toContain('bash');
    const network = await harness.data<{ addresses: string[] }>('terminal.linux_network', {});
    expect(network.addresses.length).toBeGreaterThan(0);
  }, 60_000);
});
