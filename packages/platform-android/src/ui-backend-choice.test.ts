import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppiumUiBackend } from './appium/appium-ui-backend.js';
import { AdbUiBackend } from './ui-backend.js';
import { createUiBackendChoice, describeUiBackend } from './ui-backend-choice.js';

// A real HTTP server on 127.0.0.1 answers GET /status as Appium does; nothing is started here.
describe('the UI backend choice', () => {
  let status: Server;
  let url: string;
  let emptyHome: string;

  beforeAll(async () => {
    status = createServer((request, response) => {
      response.writeHead(request.url === '/status' ? 200 : 404, {
        'content-type': 'application/json',
      });
      response.end(JSON.stringify({ value: { ready: true, build: { version: '3.8.0' } } }));
    });
    await new Promise<void>((resolve) => status.listen(0, '127.0.0.1', resolve));
    const address = status.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    emptyHome = await mkdtemp(join(tmpdir(), 'appium-home-'));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => status.close(() => resolve()));
    await rm(emptyHome, { recursive: true, force: true });
  });

  it('uses adb by default and says so', async () => {
    expect(await createUiBackendChoice({}).get()).toBeInstanceOf(AdbUiBackend);
    expect(await describeUiBackend({})).toMatch(
      /^UI tools through adb \(uiautomator\)\. Appium 3\.\d+\.\d+ with appium-uiautomator2-driver \d+\.\d+\.\d+ is installed and can be used: set packages\.platform-android\.ui to "appium" \(or "auto": Appium while it works, else adb\); it starts on 127\.0\.0\.1 on first use\.$/,
    );
  });

  it('with adb, says whether a configured Appium URL answers and how to switch to it', async () => {
    expect(await describeUiBackend({ appiumUrl: url })).toBe(
      `UI tools through adb (uiautomator). Appium at ${url} answers: to use it, set packages.platform-android.ui to "appium" (or "auto": Appium while it works, else adb).`,
    );
    const closed = 'http://127.0.0.1:9/';
    expect(await describeUiBackend({ ui: 'adb', appiumUrl: closed })).toBe(
      `UI tools through adb (uiautomator). Appium at ${closed} does not answer: start it, then set packages.platform-android.ui to "appium" (or "auto": Appium while it works, else adb).`,
    );
  });

  it('with adb, says why Appium is not usable when its peers are missing', async () => {
    expect(await describeUiBackend({ appiumHome: emptyHome })).toBe(
      `UI tools through adb (uiautomator). Appium is not usable: Appium is not installed under ${emptyHome} (run \`npm install appium@3.8.0 appium-uiautomator2-driver@8.7.0\` in a folder and set packages.platform-android.appiumHome to it, or set appiumUrl).`,
    );
    expect(await describeUiBackend({ appiumStart: false })).toMatch(
      /^UI tools through adb \(uiautomator\)\. Appium is not usable: no appiumUrl and appiumStart is false; /,
    );
  });

  it('in auto mode picks Appium when its URL answers, adb when it does not', async () => {
    expect(await createUiBackendChoice({ ui: 'auto', appiumUrl: url }).get()).toBeInstanceOf(
      AppiumUiBackend,
    );
    const closed = 'http://127.0.0.1:9/';
    expect(await createUiBackendChoice({ ui: 'auto', appiumUrl: closed }).get()).toBeInstanceOf(
      AdbUiBackend,
    );
    expect(await describeUiBackend({ ui: 'auto', appiumUrl: url })).toBe(
      `UI tools through Appium at ${url} (it answers).`,
    );
    expect(await describeUiBackend({ ui: 'auto', appiumUrl: closed })).toBe(
      `UI tools through adb: Appium at ${closed} does not answer.`,
    );
  });

  it('in auto mode falls back to adb when no Appium is installed to start', async () => {
    const choice = createUiBackendChoice({ ui: 'auto', appiumHome: emptyHome });
    expect(await choice.get()).toBeInstanceOf(AdbUiBackend);
    expect(await describeUiBackend({ ui: 'auto', appiumHome: emptyHome })).toBe(
      `UI tools through adb: no Appium URL and Appium is not installed under ${emptyHome} (run \`npm install appium@3.8.0 appium-uiautomator2-driver@8.7.0\` in a folder and set packages.platform-android.appiumHome to it, or set appiumUrl).`,
    );
    expect(await describeUiBackend({ ui: 'auto', appiumStart: false })).toBe(
      'UI tools through adb: no Appium URL and local start is off.',
    );
  });

  it('names the Appium and driver versions it would start, without starting them', async () => {
    expect(await describeUiBackend({ ui: 'appium' })).toMatch(
      /^UI tools through Appium 3\.\d+\.\d+ with appium-uiautomator2-driver \d+\.\d+\.\d+, started on 127\.0\.0\.1 on first use\.$/,
    );
    const backend = await createUiBackendChoice({ ui: 'appium' }).get();
    expect(backend).toBeInstanceOf(AppiumUiBackend);
    expect((backend as AppiumUiBackend).localServer?.pid).toBeUndefined();
  });

  it('refuses ui appium with no URL and local start off', () => {
    expect(() => createUiBackendChoice({ ui: 'appium', appiumStart: false })).toThrow(
      'ui "appium" needs appiumUrl, or appiumStart left on',
    );
  });
});
