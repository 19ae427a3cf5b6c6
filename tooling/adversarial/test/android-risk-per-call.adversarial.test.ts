import type { RiskPolicy, ToolRisk } from '@toolsys/core-tool-registry';
import { textOf } from '@toolsys/test-support';
import { beforeEach, describe, expect, it } from 'vitest';
import { useAndroidHarness } from './support/android.js';
import { gatedExecutor } from './support/executor.js';

// Issue 30 item 13: a risk that depends on the arguments goes through the kernel's risk gate, so
// the deployment's policy applies to it: `clipboard` set (MEDIUM) is refused by `MEDIUM: "deny"`
// although `clipboard` get (LOW) is not; `control_media` is MEDIUM, as its effect is.

const android = useAndroidHarness();

beforeEach(() => {
  android.sim.device.state.clipboard = 'kept';
});

/** The harness's tools behind a risk gate with `policy`, answering every question with `allow_once`. */
function gated(policy: Partial<Record<ToolRisk, RiskPolicy>>) {
  return gatedExecutor({ registry: android.harness.registry, policy, answer: 'allow_once' });
}

describe('risk decided per call goes through the gate (item 13)', { timeout: 30_000 }, () => {
  it('MEDIUM: "deny" refuses clipboard set, unasked, and still lets clipboard get read', async () => {
    const { asked, executor } = gated({ MEDIUM: 'deny' });
    const set = await executor.execute('clipboard', { action: 'set', text: 'rm -rf ~' });
    expect(set.ok === false && set.error).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'MEDIUM risk tools are disabled in this deployment.',
    });
    expect(asked).toEqual([]);
    expect(android.sim.device.state.clipboard).toBe('kept');

    const get = await executor.execute('clipboard', { action: 'get' });
    expect(textOf(get)).toContain('Clipboard (4 characters):');
    expect(asked).toEqual([]);
  });

  it('asks for clipboard set at MEDIUM with the text shown, then sets it', async () => {
    const { asked, executor } = gated({});
    const set = await executor.execute('clipboard', { action: 'set', text: 'pay\u202Eto' });
    expect(textOf(set)).toBe('Clipboard set (6 characters).');
    expect(asked.map(({ risk, action }) => ({ risk, action }))).toEqual([
      { risk: 'MEDIUM', action: 'action: "set"\ntext: "pay\u202Eto"' },
    ]);
    expect(android.sim.device.state.clipboard).toBe('pay\u202Eto');
  });

  it('declares control_media MEDIUM, so MEDIUM: "deny" refuses it', async () => {
    expect(android.harness.registry.get('control_media')?.metadata.risk).toBe('MEDIUM');
    const { executor } = gated({ MEDIUM: 'deny' });
    const result = await executor.execute('control_media', { action: 'mute' });
    expect(result.ok === false && result.error.code).toBe('PERMISSION_DENIED');
  });
});
