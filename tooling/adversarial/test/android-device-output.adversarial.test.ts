import { defineTool, ToolHints, type ToolResult, ToolSchema } from '@toolsys/core-tool-registry';
import { textOf } from '@toolsys/test-support';
import { beforeEach, describe, expect, it } from 'vitest';
import { useAndroidHarness } from './support/android.js';
import { expectResponsiveDuring } from './support/responsiveness.js';

// A hostile device and a prompt-injected model against the Android tools: the real adb server on
// a private port, the simulated device serving what a hostile device could print (dumps, logs).
// A model's pattern and the device's bytes must never block the server: another session pings
// the same executor while the attack runs and must keep answering.

const android = useAndroidHarness({ maxOutputBytes: 1024 * 1024 }, async ({ harness }) => {
  harness.registry.register(
    defineTool({
      id: 'ping',
      description: 'Answers at once (a second session checking the server responds).',
      inputSchema: ToolSchema.object({}),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
      execute: () => 'pong',
    }),
  );
  // A server that has served before: the first calls of a process compile their code.
  await harness.call('ui_dump');
  await harness.call('logcat', { regex: 'warm(up)?' });
});

const ping = () => android.harness.call('ping', {}, { sessionId: 'pinger' });

beforeEach(() => {
  android.sim.device.state.uiautomatorXml = undefined;
});

function expectOk(result: ToolResult): string {
  expect(result.ok, textOf(result)).toBe(true);
  return textOf(result);
}

describe('logcat with a model-supplied pattern', () => {
  it('runs a catastrophic pattern in linear time while another session keeps answering', async () => {
    const state = android.sim.device.state;
    // An ordinary log line: the pattern's class stops at "/" after 25 characters of "TAG: message".
    state.log.push({
      time: state.now,
      pid: 4120,
      tid: 4120,
      level: 'I',
      tag: 'ActivityMgr',
      message: 'Start proc 4120/com.example.chat',
    });
    // And a flood of long lines that make even a linear engine work (~1 MiB).
    for (let index = 0; index < 250; index++) {
      state.log.push({
        time: state.now,
        pid: 4120,
        tid: 4120,
        level: 'I',
        tag: 'Flood',
        message: `${'a'.repeat(4_000)}/`,
      });
    }
    const result = await expectResponsiveDuring(
      () =>
        android.harness.call(
          'logcat',
          { regex: '^([a-zA-Z_ .:=(),0-9]+)*$' },
          { sessionId: 'attacker' },
        ),
      ping,
    );
    expect(textOf(result)).not.toContain('Start proc 4120/com.example.chat');
    state.log.splice(-250);
  }, 30_000);

  it('refuses a backreference as INVALID_ARGUMENT naming the field', async () => {
    const result = await android.harness.call('logcat', { regex: '(a)\\1' });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'regex' });
  });

  it('still filters by an ordinary pattern', async () => {
    const text = expectOk(
      await android.harness.call('logcat', { regex: 'Start proc \\d+/com\\.example' }),
    );
    expect(text).toContain('Start proc 4120/com.example.chat');
  });
});

describe('a hostile UI dump', () => {
  it('parses 300 KB of unclosed tags in linear time while another session keeps answering', async () => {
    android.sim.device.state.uiautomatorXml = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">${'<a '.repeat(100_000)}</hierarchy>`;
    const started = performance.now();
    await expectResponsiveDuring(
      () => android.harness.call('ui_dump', {}, { sessionId: 'attacker' }),
      ping,
    );
    expect(performance.now() - started).toBeLessThan(10_000);
  }, 60_000);

  it('parses 300 KB of nested elements without deep recursion', async () => {
    android.sim.device.state.uiautomatorXml = `<hierarchy rotation="0">${'<node text="x" clickable="true">'.repeat(10_000)}</hierarchy>`;
    const result = await expectResponsiveDuring(
      () => android.harness.call('ui_dump', {}, { sessionId: 'attacker' }),
      ping,
    );
    expect(textOf(result)).not.toContain('Maximum call stack');
    expect(result.ok, textOf(result)).toBe(true);
  }, 60_000);

  it('survives character references no code point has', async () => {
    android.sim.device.state.uiautomatorXml =
      '<hierarchy rotation="0"><node text="&#99999999;&#x110000;ok" class="android.widget.TextView" bounds="[0,0][10,10]"/></hierarchy>';
    const text = expectOk(await android.harness.call('ui_dump'));
    expect(text).toContain('ok');
  });

  it('stops reading a huge dump at the byte bound and says so', async () => {
    const node =
      '<node index="0" text="row" resource-id="" class="android.widget.TextView" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][100,100]" />';
    // 4 MiB from the device; the harness bounds each output at 1 MiB.
    android.sim.device.state.uiautomatorXml = `<hierarchy rotation="0">${node.repeat(Math.ceil((4 * 1024 * 1024) / node.length))}</hierarchy>`;
    // The capped megabyte is parsed in one synchronous pass (tens of ms on a quiet machine), so
    // this case allows a little more than the usual 100 ms.
    const result = await expectResponsiveDuring(
      () => android.harness.call('ui_dump', {}, { sessionId: 'attacker' }),
      ping,
      { slackMs: 200 },
    );
    expect(textOf(result)).toContain('[device output cut: the device sent more than the bound');
  }, 60_000);

  it('stops reading a huge log at the byte bound and says so', async () => {
    const state = android.sim.device.state;
    for (let index = 0; index < 300; index++) {
      state.log.push({
        time: state.now,
        pid: 4120,
        tid: 4120,
        level: 'I',
        tag: 'Spam',
        message: `${index} ${'x'.repeat(8_000)}`,
      });
    }
    const text = await expectResponsiveDuring(
      async () =>
        textOf(await android.harness.call('logcat', { maxLines: 5 }, { sessionId: 'attacker' })),
      ping,
    );
    expect(text).toContain('[device output cut: the device sent more than the bound');
    state.log.splice(-300);
  }, 60_000);
});
