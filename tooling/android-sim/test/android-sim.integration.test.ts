import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdbTestBed, AndroidSim, adbBinary, startAdbTestBed } from '../src/index.js';

const execFileAsync = promisify(execFile);

// The real adb client and server (Debian's adb) against two sims on one private server port.
describe('android-sim through the real adb binary', () => {
  let bed: AdbTestBed;
  let directory: string;
  let echoServer: Server | undefined;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'android-sim-'));
    bed = await startAdbTestBed({ sims: [{}, { device: { model: 'Galaxy S23' } }] });
  }, 60_000);

  afterAll(async () => {
    await bed?.stop();
    echoServer?.close();
    await rm(directory, { recursive: true, force: true });
  });

  const serial = () => bed.sims[0]?.serial as string;

  it('lists both sims as devices with their models', async () => {
    const out = await bed.adb(['devices', '-l']);
    expect(out).toContain(`${bed.sims[0]?.serial}`);
    expect(out).toContain('model:Pixel_7');
    expect(out).toContain('model:Galaxy_S23');
  });

  it('returns stdout and exit code 0 over shell v2', async () => {
    expect(await bed.adb(['-s', serial(), 'shell', 'getprop', 'ro.product.model'])).toBe(
      'Pixel 7\n',
    );
  });

  it('returns the exit code and stderr of a failing command over shell v2', async () => {
    const failure = await execFileAsync(
      adbBinary(),
      ['-P', String(bed.serverPort), '-s', serial(), 'shell', 'nosuch'],
      {
        encoding: 'utf8',
      },
    ).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect(failure).toMatchObject({
      code: 127,
      stdout: '',
      stderr: '/system/bin/sh: nosuch: inaccessible or not found\n',
    });
  });

  it('pushes and pulls a file larger than the payload limit through sync', async () => {
    const payload = Buffer.alloc(300_000);
    for (let index = 0; index < payload.length; index++) payload[index] = (index * 31) % 251;
    await writeFile(join(directory, 'in.bin'), payload);
    await bed.adb(['-s', serial(), 'push', join(directory, 'in.bin'), '/data/local/tmp/in.bin']);
    expect(
      bed.sims[0]?.device.state.files.get('/data/local/tmp/in.bin')?.data.equals(payload),
    ).toBe(true);
    await bed.adb(['-s', serial(), 'pull', '/data/local/tmp/in.bin', join(directory, 'out.bin')]);
    expect((await readFile(join(directory, 'out.bin'))).equals(payload)).toBe(true);
  });

  it('reports a missing remote file on pull with the stat_v2 errno', async () => {
    const failure = (await bed
      .adb(['-s', serial(), 'pull', '/sdcard/none.txt', join(directory, 'none.txt')])
      .then(() => ({ stdout: 'pulled', stderr: '' }))
      .catch((error: { stdout: string; stderr: string }) => error)) as {
      stdout: string;
      stderr: string;
    };
    expect(`${failure.stdout}${failure.stderr}`).toContain(
      "failed to stat remote object '/sdcard/none.txt': No such file or directory",
    );
  });

  it('streams a screencap PNG through exec-out', async () => {
    const { stdout } = await execFileAsync(
      adbBinary(),
      ['-P', String(bed.serverPort), '-s', serial(), 'exec-out', 'screencap -p'],
      { encoding: 'buffer', maxBuffer: 32 * 1024 * 1024 },
    );
    expect(
      stdout.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
    ).toBe(true);
    expect(stdout.readUInt32BE(16)).toBe(270);
  });

  it('installs an APK streamed by adb install (exec:cmd package install -S)', async () => {
    const manifest = Buffer.from(
      '<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="org.example.streamed" android:versionCode="3" android:versionName="0.3"/>',
    );
    const name = Buffer.from('AndroidManifest.xml');
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt32LE(manifest.length, 18);
    header.writeUInt32LE(manifest.length, 22);
    header.writeUInt16LE(name.length, 26);
    await writeFile(
      join(directory, 'streamed.apk'),
      Buffer.concat([header, name, manifest, Buffer.alloc(5000, 1)]),
    );
    const out = await bed.adb(['-s', serial(), 'install', '-r', join(directory, 'streamed.apk')]);
    expect(out).toContain('Success');
    expect(bed.sims[0]?.device.state.apps.get('org.example.streamed')?.versionName).toBe('0.3');
  });

  it('keeps the two sims apart', async () => {
    await bed.adb(['-s', serial(), 'shell', 'settings put system font_scale 1.3']);
    expect(await bed.adb(['-s', serial(), 'shell', 'settings get system font_scale'])).toBe(
      '1.3\n',
    );
    expect(
      await bed.adb([
        '-s',
        bed.sims[1]?.serial as string,
        'shell',
        'settings get system font_scale',
      ]),
    ).toBe('1.0\n');
  });

  it('forwards a local port to a device tcp port', async () => {
    echoServer = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echoServer?.listen(0, '127.0.0.1', resolve));
    const address = echoServer.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const out = await bed.adb(['-s', serial(), 'forward', 'tcp:0', `tcp:${port}`]);
    const localPort = Number(out.trim());
    const { connect } = await import('node:net');
    const echoed = await new Promise<string>((resolve, reject) => {
      const socket = connect(localPort, '127.0.0.1', () => socket.write('ping over adb'));
      socket.once('data', (data) => {
        resolve(data.toString());
        socket.destroy();
      });
      socket.once('error', reject);
    });
    expect(echoed).toBe('ping over adb');
    await bed.adb(['-s', serial(), 'forward', '--remove', `tcp:${localPort}`]);
  });

  it('refuses a port the adb server would adopt as an emulator', async () => {
    await expect(AndroidSim.start({ port: 5560 })).rejects.toThrow(/5555-5585/);
  });

  it('refuses am instrument of a package without that instrumentation', async () => {
    const error = await bed
      .adb([
        '-s',
        serial(),
        'shell',
        'am',
        'instrument',
        '-w',
        'org.example.none/androidx.test.runner.AndroidJUnitRunner',
      ])
      .then(
        () => undefined,
        (caught: Error) => caught.message,
      );
    expect(error).toContain(
      'INSTRUMENTATION_FAILED: org.example.none/androidx.test.runner.AndroidJUnitRunner',
    );
  });
});
