import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebDriverStub, type WebDriverStub } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AndroidDeviceError } from '../adb-errors.js';
import type { AndroidDevice } from '../android-device.js';
import { LocalAppiumServer } from './appium-server.js';
import { AppiumUiBackend } from './appium-ui-backend.js';

// The backend only reads `serial` from the device here: no call reaches adb before a session exists.
const device = { serial: 'emulator-5554' } as AndroidDevice;

async function failure(promise: Promise<unknown>): Promise<AndroidDeviceError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AndroidDeviceError))
    throw new Error(`expected an AndroidDeviceError, got ${String(error)}`);
  return error;
}

describe('AppiumUiBackend without a working server', () => {
  let refusing: Server;
  let refusingUrl: string;
  let emptyHome: string;

  beforeAll(async () => {
    // A real HTTP server on 127.0.0.1 that refuses every new session as Appium does without a driver.
    refusing = createServer((_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          value: {
            error: 'session not created',
            message:
              "Could not find a driver for automationName 'UiAutomator2' and platformName 'Android'.",
            stacktrace: '',
          },
        }),
      );
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const address = refusing.address();
    refusingUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    emptyHome = await mkdtemp(join(tmpdir(), 'appium-home-'));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => refusing.close(() => resolve()));
    await rm(emptyHome, { recursive: true, force: true });
  });

  it('reports a session the server refuses, with the fix', async () => {
    const backend = new AppiumUiBackend({ appiumUrl: refusingUrl });
    const error = await failure(backend.readHierarchy(device));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toMatch(
      new RegExp(
        `^Could not start an Appium UiAutomator2 session on emulator-5554 through ${refusingUrl}: .*Could not find a driver`,
      ),
    );
    expect(error.hint).toContain('set packages.platform-android.ui to "adb"');
    expect(backend.sessionsCreated.size).toBe(0);
    await backend.dispose();
  });

  it('reports a local Appium that is not installed, and starts nothing', async () => {
    const local = new LocalAppiumServer({ appiumHome: emptyHome });
    const backend = new AppiumUiBackend({ local });
    const error = await failure(backend.screenshot(device));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toBe(
      `Could not start a local Appium server: Appium is not installed under ${emptyHome} (run \`npm install appium@3.8.0 appium-uiautomator2-driver@8.7.0\` in a folder and set packages.platform-android.appiumHome to it, or set appiumUrl)`,
    );
    expect(local.pid).toBeUndefined();
    await backend.dispose();
  });

  it('needs a URL or a local server', () => {
    expect(() => new AppiumUiBackend({})).toThrow(
      'AppiumUiBackend needs appiumUrl or a local server',
    );
  });
});

describe('AppiumUiBackend against a server that stops answering', () => {
  let stalling: WebDriverStub;
  let url: string;
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    // A real HTTP server that opens a session, then never answers the page source.
    stalling = await startWebDriverStub((response) => held.push(response));
    url = stalling.url;
  });

  afterAll(async () => {
    for (const response of held) response.destroy();
    await stalling.close();
  });

  it('gives up after the command time limit with TIMEOUT, and on the caller abort', async () => {
    const backend = new AppiumUiBackend({ appiumUrl: url, commandTimeoutMs: 300 });
    const error = await failure(backend.readHierarchy(device));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toBe('Appium did not answer within 0 s on emulator-5554.');
    expect(backend.sessionsCreated.get('emulator-5554')).toBe(1);
    const controller = new AbortController();
    const aborted = backend.readHierarchy(device, { signal: controller.signal });
    controller.abort(new Error('cancelled by the caller'));
    await expect(aborted).rejects.toThrow('cancelled by the caller');
    // Answer the held requests so the abandoned ones end before the session is deleted.
    for (const response of held.splice(0)) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ value: '<hierarchy/>' }));
    }
    await backend.dispose();
  });
});
