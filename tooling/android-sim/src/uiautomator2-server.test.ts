import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDefaultDeviceState } from './default-device.js';
import { SimDevice } from './sim-device.js';
import { FakeUiAutomator2Server } from './uiautomator2-server.js';

const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

// The fake server on 127.0.0.1, spoken to over real HTTP the way the driver's proxy does.
describe('FakeUiAutomator2Server', () => {
  let device: SimDevice;
  let server: FakeUiAutomator2Server;
  let sessionId: string;

  async function request(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; value: unknown }> {
    const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const payload = (await response.json()) as { value: unknown };
    return { status: response.status, value: payload.value };
  }

  const find = (strategy: string, selector: string) =>
    request('POST', `/session/${sessionId}/elements`, { strategy, selector });

  beforeEach(async () => {
    device = new SimDevice(createDefaultDeviceState());
    device.run('am start -n com.example.chat/.MainActivity');
    server = await FakeUiAutomator2Server.start(device);
    const created = await request('POST', '/session', {
      capabilities: { firstMatch: [{ platformName: 'Android' }], alwaysMatch: {} },
    });
    sessionId = server.sessionId as string;
    expect(created.value).toMatchObject({ platformName: 'Android', sessionId });
  });

  afterEach(async () => {
    await server.close();
  });

  it('answers status and lists its session', async () => {
    expect((await request('GET', '/status')).value).toMatchObject({ ready: true });
    expect((await request('GET', '/sessions')).value).toEqual([
      { id: sessionId, capabilities: { platformName: 'Android' } },
    ]);
  });

  it('serves the page source with one element per class and the dump attributes', async () => {
    const { value } = await request('GET', `/session/${sessionId}/source`);
    expect(value).toMatch(
      /^<\?xml version='1\.0' encoding='UTF-8' standalone='yes' \?><hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400"><android\.widget\.FrameLayout index="0" package="com\.example\.chat" class="android\.widget\.FrameLayout"/,
    );
    expect(value).toContain(
      '<android.widget.ImageButton index="4" package="com.example.chat" class="android.widget.ImageButton" text="" resource-id="com.example.chat:id/send" content-desc="Send"',
    );
  });

  it('finds by id, accessibility id, class name, UiSelector and XPath', async () => {
    expect(((await find('id', 'send')).value as unknown[]).length).toBe(1);
    expect(((await find('id', 'com.example.chat:id/message')).value as unknown[]).length).toBe(3);
    expect(((await find('accessibility id', 'Send')).value as unknown[]).length).toBe(1);
    expect(((await find('class name', 'android.widget.EditText')).value as unknown[]).length).toBe(
      1,
    );
    expect(
      (
        (
          await find(
            '-android uiautomator',
            'new UiSelector().className("android.widget.TextView").text("Alice")',
          )
        ).value as unknown[]
      ).length,
    ).toBe(1);
    expect(
      (
        (await find('xpath', '//android.widget.TextView[@text="Running 5 min late"]'))
          .value as unknown[]
      ).length,
    ).toBe(1);
    expect(
      (
        (
          await find(
            'xpath',
            '/hierarchy/android.widget.FrameLayout[1]/android.widget.LinearLayout[1]/android.widget.FrameLayout[1]/android.widget.EditText[1]',
          )
        ).value as unknown[]
      ).length,
    ).toBe(1);
    expect(((await find('id', 'nothing')).value as unknown[]).length).toBe(0);
  });

  it('refuses what it cannot parse, and a missing single element', async () => {
    expect(await find('xpath', '//*[contains(@text, "x")]')).toMatchObject({
      status: 400,
      value: { error: 'invalid selector' },
    });
    expect(await find('-android uiautomator', 'new UiSelector().textMatches("x")')).toMatchObject({
      status: 400,
      value: { error: 'invalid selector' },
    });
    expect(await find('css selector', 'button')).toMatchObject({ status: 400 });
    expect(
      await request('POST', `/session/${sessionId}/element`, {
        strategy: 'id',
        selector: 'nothing',
      }),
    ).toMatchObject({ status: 404, value: { error: 'no such element' } });
    expect(await request('GET', '/session/other/source')).toMatchObject({
      status: 404,
      value: { error: 'invalid session id' },
    });
  });

  it('clicks, sets Unicode text and reports a stale element after the screen changed', async () => {
    const [field] = (await find('id', 'compose')).value as Record<string, string>[];
    const id = field?.[ELEMENT] as string;
    await request('POST', `/session/${sessionId}/element/${id}/value`, { text: 'ça va? 你好' });
    expect(device.focusedField?.text).toBe('ça va? 你好');
    expect((await request('GET', `/session/${sessionId}/element/${id}/text`)).value).toBe(
      'ça va? 你好',
    );
    const [send] = (await find('accessibility id', 'Send')).value as Record<string, string>[];
    await request('POST', `/session/${sessionId}/element/${send?.[ELEMENT]}/click`);
    expect(device.screen.id).toBe('chat-sent');
    expect(await request('POST', `/session/${sessionId}/element/${id}/click`)).toMatchObject({
      status: 404,
      value: { error: 'stale element reference' },
    });
  });

  it('turns W3C pointer actions into a tap or a swipe', async () => {
    const pointer = (x1: number, y1: number, x2: number, y2: number) => ({
      actions: [
        {
          type: 'pointer',
          id: 'finger',
          actions: [
            { type: 'pointerMove', x: x1, y: y1, origin: 'viewport' },
            { type: 'pointerDown', button: 0 },
            { type: 'pointerMove', x: x2, y: y2, origin: 'viewport', duration: 300 },
            { type: 'pointerUp', button: 0 },
          ],
        },
      ],
    });
    await request('POST', `/session/${sessionId}/actions`, pointer(400, 2300, 400, 2300));
    expect(device.keyboardShown).toBe(true);
    device.run('input keyevent KEYCODE_HOME');
    device.run('am start -n com.example.feed/.FeedActivity');
    const before = device.dumpXml();
    await request('POST', `/session/${sessionId}/actions`, pointer(540, 1800, 540, 600));
    expect(device.dumpXml()).not.toBe(before);
    expect(await request('POST', `/session/${sessionId}/actions`, { actions: 'x' })).toMatchObject({
      status: 400,
      value: { error: 'invalid argument' },
    });
  });

  it('serves a PNG screenshot, the window size and the device info', async () => {
    const png = Buffer.from(
      (await request('GET', `/session/${sessionId}/screenshot`)).value as string,
      'base64',
    );
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect((await request('GET', `/session/${sessionId}/window/current/size`)).value).toEqual({
      width: 1080,
      height: 2400,
    });
    expect((await request('GET', `/session/${sessionId}/appium/device/info`)).value).toMatchObject({
      realDisplaySize: '1080x2400',
    });
  });
});
