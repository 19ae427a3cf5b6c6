// Commands that capture the device: `uiautomator dump`, `screencap`, `logcat` and `cat` of a file.
import type { SimNode } from '../device-model.js';
import { encodePng, type PngRectangle } from '../png.js';
import type { SimDevice } from '../sim-device.js';
import { visibleChildren } from '../ui-xml.js';
import { type CommandOutput, fail, ok } from './command-output.js';
import { formatThreadtime, parseLogTime } from './dump-format.js';

/** `uiautomator dump [FILE]`: writes the hierarchy XML of the current screen. */
export function uiautomator(device: SimDevice, args: string[]): CommandOutput {
  if (args[0] !== 'dump') return fail(`Unknown command: ${args[0] ?? ''}\n`, 1);
  if (!device.state.screenOn) {
    return fail('ERROR: null root node returned by UiTestAutomationBridge.\n', 1);
  }
  if (device.state.uiautomatorError !== undefined)
    return fail(`${device.state.uiautomatorError}\n`, 1);
  const target = args.slice(1).find((arg) => !arg.startsWith('--')) ?? '/sdcard/window_dump.xml';
  const xml = device.state.uiautomatorXml ?? device.dumpXml();
  if (target === '/dev/tty')
    return {
      stdout: Buffer.concat([Buffer.from(xml), Buffer.from('UI hierchary dumped to: /dev/tty\n')]),
      stderr: '',
      exitCode: 0,
    };
  device.state.files.set(target, {
    data: Buffer.from(xml),
    mode: 0o100660,
    mtime: device.seconds(),
  });
  return ok(`UI hierchary dumped to: ${target}\n`);
}

/** `screencap [-p] [FILE]`: a PNG (or raw) picture of the current screen. */
export function screencap(device: SimDevice, args: string[]): CommandOutput {
  const { width, height } = device.state.display;
  // A full-size capture is large; the sim renders at a quarter of each side to stay fast, which is
  // still a valid PNG with the device's aspect ratio.
  const scale = 4;
  const smallWidth = Math.round(width / scale);
  const smallHeight = Math.round(height / scale);
  let png: Buffer;
  if (!device.state.screenOn || device.screen.secure) {
    png = encodePng(smallWidth, smallHeight, [0, 0, 0]);
  } else {
    const rectangles: PngRectangle[] = [];
    const paint = (node: SimNode, depth: number) => {
      if (node.clickable || node.text) {
        const [left, top, right, bottom] = node.bounds;
        rectangles.push({
          bounds: [left / scale, top / scale, right / scale, bottom / scale].map(Math.round) as [
            number,
            number,
            number,
            number,
          ],
          rgb: node.clickable
            ? [40, 110, 220]
            : [200 - depth * 10, 200 - depth * 10, 200 - depth * 10],
        });
      }
      for (const child of visibleChildren(node, (n) => device.pages.get(n) ?? 0))
        paint(child, depth + 1);
    };
    paint(device.screen.root, 0);
    png = encodePng(smallWidth, smallHeight, [250, 250, 250], rectangles);
  }
  if (args.includes('-p') || args.length === 0) {
    const file = args.find((arg) => arg.startsWith('/'));
    if (file !== undefined) {
      device.state.files.set(file, { data: png, mode: 0o100660, mtime: device.seconds() });
      return ok('');
    }
    return { stdout: png, stderr: '', exitCode: 0 };
  }
  return fail('usage: screencap [-hp] [-d display-id] [FILENAME]\n', 1);
}

/** `logcat -d`: the log buffer in threadtime format, filtered by `-t`/`-T` and `--pid`. */
export function logcat(device: SimDevice, args: string[]): CommandOutput {
  let entries = [...device.state.log];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg.startsWith('--pid=')) {
      const pid = Number(arg.slice('--pid='.length));
      entries = entries.filter((entry) => entry.pid === pid);
    } else if (arg === '-t' || arg === '-T') {
      const value = args[++index] ?? '';
      if (/^\d+$/.test(value)) entries = entries.slice(-Number(value));
      else {
        const since = parseLogTime(value, device.state.now);
        if (since === undefined) return fail(`logcat: Invalid time: ${value}\n`, 1);
        entries = entries.filter((entry) => entry.time >= since);
      }
    } else if (arg === '-c') {
      device.state.log.length = 0;
      return ok('');
    }
  }
  if (!args.includes('-d')) {
    // A streaming logcat never ends; the sim only serves dumps.
    return fail('logcat: the simulated device only serves dumps (-d)\n', 1);
  }
  const lines = ['--------- beginning of main', ...entries.map(formatThreadtime)];
  return ok(`${lines.join('\n')}\n`);
}

/** `cat FILE`: a file the sim holds (a dump or capture written earlier). */
export function cat(device: SimDevice, args: string[]): CommandOutput {
  const out: Buffer[] = [];
  for (const path of args) {
    const file = device.state.files.get(path);
    if (!file)
      return {
        stdout: Buffer.concat(out),
        stderr: `cat: ${path}: No such file or directory\n`,
        exitCode: 1,
      };
    out.push(file.data);
  }
  return { stdout: Buffer.concat(out), stderr: '', exitCode: 0 };
}
