// The activity manager commands: `am` (start, force-stop, broadcast …) and `monkey`.
import type { SimDevice } from '../sim-device.js';
import { type CommandOutput, fail, ok } from './command-output.js';
import { shortActivity } from './dump-format.js';
import { ADB_KEYBOARD_IME, currentIme } from './system-commands.js';

/** `am`: starts activities, force-stops packages, sends broadcasts (Clipper, ADBKeyboard) and runs instrumentation. */
export function am(device: SimDevice, args: string[]): CommandOutput {
  const [verb, ...rest] = args;
  if (verb === 'start' || verb === 'start-activity') {
    const componentIndex = rest.indexOf('-n');
    const component = componentIndex >= 0 ? rest[componentIndex + 1] : undefined;
    if (component === undefined)
      return fail('Error: Activity not started, unable to resolve Intent\n', 1);
    const [packageName = '', activityPart = ''] = component.split('/');
    const activity = activityPart.startsWith('.') ? `${packageName}${activityPart}` : activityPart;
    const screen = [...device.state.screens.values()].find(
      (candidate) => candidate.packageName === packageName && candidate.activity === activity,
    );
    const wait = rest.includes('-W');
    const app = device.state.apps.get(packageName);
    const drawsNothing =
      app !== undefined &&
      !app.system &&
      ![...device.state.screens.values()].some(
        (candidate) => candidate.packageName === packageName,
      );
    if (!screen && drawsNothing) {
      // An installed app the sim has no screens for (a helper such as io.appium.settings): its
      // activity starts its process and finishes at once, leaving the screen as it was.
      device.ensureProcess(packageName);
      return ok(
        `Starting: Intent { cmp=${component} }\n${wait ? `Status: ok\nLaunchState: COLD\nActivity: ${shortActivity(packageName, activity)}\nTotalTime: 85\nWaitTime: 90\nComplete\n` : ''}`,
      );
    }
    if (!screen || !app) {
      return {
        stdout: Buffer.from(
          `Starting: Intent { cmp=${component} }\nError type 3\nError: Activity class {${packageName}/${activity}} does not exist.\n`,
        ),
        stderr: '',
        exitCode: 1,
      };
    }
    const cold = !device.state.processes.has(packageName);
    device.showScreen(screen.id);
    device.log({
      pid: 1799,
      tid: 1821,
      level: 'I',
      tag: 'ActivityTaskManager',
      message: `START u0 {flg=0x10000000 cmp=${component}} from uid 2000`,
    });
    const out = [`Starting: Intent { cmp=${component} }`];
    if (wait) {
      out.push(
        'Status: ok',
        `LaunchState: ${cold ? 'COLD' : 'WARM'}`,
        `Activity: ${shortActivity(packageName, activity)}`,
        'TotalTime: 312',
        'WaitTime: 318',
        'Complete',
      );
    }
    return ok(`${out.join('\n')}\n`);
  }
  if (verb === 'force-stop') {
    const packageName = rest.filter((arg) => !arg.startsWith('-')).at(-1) ?? '';
    device.stopPackage(packageName);
    return ok('');
  }
  if (verb === 'broadcast') return broadcast(device, rest);
  return fail(`Error: Unknown command: ${verb ?? ''}\n`, 1);
}

/** `am broadcast`: the Clipper clipboard and ADBKeyboard intents the sim understands. */
function broadcast(device: SimDevice, args: string[]): CommandOutput {
  const action = args[args.indexOf('-a') + 1] ?? '';
  const extra = (flag: string, name: string): string | undefined => {
    for (let index = 0; index < args.length - 2; index++) {
      if (args[index] === flag && args[index + 1] === name) return args[index + 2];
    }
    return undefined;
  };
  const head = `Broadcasting: Intent { flg=0x400000 act=${action}${args.length > 2 ? ' (has extras)' : ''} }\n`;
  if (action.startsWith('clipper.') && device.state.apps.has('ca.zgrs.clipper')) {
    if (action === 'clipper.set') {
      device.state.clipboard = extra('-e', 'text') ?? extra('--es', 'text') ?? '';
      return ok(`${head}Broadcast completed: result=-1, data="Text is copied into clipboard."\n`);
    }
    if (action === 'clipper.get') {
      return ok(`${head}Broadcast completed: result=-1, data="${device.state.clipboard}"\n`);
    }
  }
  if (
    action.startsWith('ADB_') &&
    currentIme(device) === ADB_KEYBOARD_IME &&
    device.state.apps.has('com.android.adbkeyboard')
  ) {
    const field = device.focusedField;
    if (action === 'ADB_INPUT_B64' && field) {
      field.text =
        (field.text ?? '') + Buffer.from(extra('--es', 'msg') ?? '', 'base64').toString('utf8');
    } else if (action === 'ADB_INPUT_TEXT' && field) {
      field.text = (field.text ?? '') + (extra('--es', 'msg') ?? '');
    } else if (action === 'ADB_CLEAR_TEXT' && field) {
      field.text = '';
    }
    return ok(`${head}Broadcast completed: result=0\n`);
  }
  return ok(`${head}Broadcast completed: result=0\n`);
}

/** `monkey -p PACKAGE -c android.intent.category.LAUNCHER 1`: opens an app at its launcher screen. */
export function monkey(device: SimDevice, args: string[]): CommandOutput {
  const packageIndex = args.indexOf('-p');
  const packageName = packageIndex >= 0 ? args[packageIndex + 1] : undefined;
  const app = packageName === undefined ? undefined : device.state.apps.get(packageName);
  const echo = args.map((arg) => `  bash arg: ${arg}`).join('\n');
  if (!app || app.launchScreen === undefined) {
    return {
      stdout: Buffer.from(
        `${echo}\nargs: [${args.join(', ')}]\n arg: "${args.join('"\n arg: "')}"\n** No activities found to run, monkey aborted.\n`,
      ),
      stderr: '',
      exitCode: 252,
    };
  }
  device.showScreen(app.launchScreen);
  return ok(
    `${echo}\nargs: [${args.join(', ')}]\nEvents injected: 1\n## Network stats: elapsed time=15ms (0ms mobile, 0ms wifi, 15ms not connected)\n`,
  );
}
