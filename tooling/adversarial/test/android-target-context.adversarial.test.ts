import { textOf } from '@toolsys/test-support';
import { beforeEach, describe, expect, it } from 'vitest';
import { useAndroidHarness } from './support/android.js';

/*
 * Issue 30 item 23: ui_dump showed "Save your draft?" with `[e391] OK`; the app swapped the message
 * for "Factory reset: erase ALL data?"; ui_tap e391 tapped OK (a ref's identity leaves out its
 * siblings, such as the dialog's message) and the result said "nothing on screen changed". The
 * real adb server against the simulated device, whose dump is swapped between the two calls.
 */

const android = useAndroidHarness();

beforeEach(() => {
  android.sim.device.state.uiautomatorXml = undefined;
});

function dialog(message: string): string {
  const node = (attributes: string, children = '') =>
    `<node index="0" ${attributes} package="com.example.notes" enabled="true">${children}</node>`;
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">${node(
    'text="" resource-id="" class="android.widget.FrameLayout" content-desc="" clickable="false" bounds="[0,0][1080,2400]"',
    node(
      'text="" resource-id="com.example.notes:id/parentPanel" class="android.widget.LinearLayout" content-desc="" clickable="false" bounds="[100,900][980,1500]"',
      node(
        `text="${message}" resource-id="android:id/message" class="android.widget.TextView" content-desc="" clickable="false" bounds="[140,940][940,1100]"`,
      ) +
        node(
          'text="" resource-id="android:id/buttonPanel" class="android.widget.LinearLayout" content-desc="" clickable="false" bounds="[100,1300][980,1500]"',
          node(
            'text="Cancel" resource-id="android:id/button2" class="android.widget.Button" content-desc="" clickable="true" bounds="[500,1320][720,1480]"',
          ) +
            node(
              'text="OK" resource-id="android:id/button1" class="android.widget.Button" content-desc="" clickable="true" bounds="[740,1320][960,1480]"',
            ),
        ),
    ),
  )}</hierarchy>`;
}

function inputTaps(): string[] {
  return android.sim.device.commandLines.filter((line) => line.includes('input tap'));
}

describe('ui_tap acts only on the screen the model saw', () => {
  it('refuses a ref whose dialog message changed since ui_dump, and taps nothing', async () => {
    android.sim.device.state.uiautomatorXml = dialog('Save your draft?');
    const dump = textOf(await android.harness.call('ui_dump', {}, { sessionId: 'A' }));
    const ref = /\[(e\d{3,6})\] (?:Button )?"OK"/.exec(dump)?.[1];
    expect(ref, dump).toBeDefined();
    const tapsBefore = inputTaps().length;

    android.sim.device.state.uiautomatorXml = dialog('Factory reset: erase ALL data?');
    const result = await android.harness.call('ui_tap', { ref }, { sessionId: 'A' });
    expect(result.ok, textOf(result)).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('NOT_FOUND');
      expect(result.error.field).toBe('ref');
      expect(result.error.message).toContain('now reads "Factory reset: erase ALL data?"');
      expect(result.error.message).toContain('Nothing was tapped.');
    }
    expect(inputTaps().length).toBe(tapsBefore);
  }, 30_000);

  it('refuses the same button chosen by its text once the message changed', async () => {
    android.sim.device.state.uiautomatorXml = dialog('Save your draft?');
    await android.harness.call('ui_dump', {}, { sessionId: 'C' });
    const tapsBefore = inputTaps().length;
    android.sim.device.state.uiautomatorXml = dialog('Factory reset: erase ALL data?');
    const result = await android.harness.call('ui_tap', { text: 'OK' }, { sessionId: 'C' });
    expect(result.ok, textOf(result)).toBe(false);
    if (!result.ok) {
      expect(result.error.field).toBe('text');
      expect(result.error.message).toContain('now reads "Factory reset: erase ALL data?"');
    }
    expect(inputTaps().length).toBe(tapsBefore);
  }, 30_000);

  it('taps an unchanged dialog and names the message beside the button', async () => {
    android.sim.device.state.uiautomatorXml = dialog('Save your draft?');
    const dump = textOf(await android.harness.call('ui_dump', {}, { sessionId: 'B' }));
    const ref = /\[(e\d{3,6})\] (?:Button )?"OK"/.exec(dump)?.[1];
    expect(ref, dump).toBeDefined();
    const tapsBefore = inputTaps().length;
    const result = await android.harness.call('ui_tap', { ref }, { sessionId: 'B' });
    expect(inputTaps().length).toBe(tapsBefore + 1);
    expect(textOf(result)).toContain(`Tapped [${ref}] Button "OK" in "Save your draft?" at`);
  }, 30_000);
});
