// System commands: `getprop`, `settings`, `wm` and `ime`.
import type { SimDevice } from '../sim-device.js';
import { type CommandOutput, fail, ok } from './command-output.js';

/** `getprop [NAME]`: one property, or all as `[name]: [value]` lines. */
export function getprop(device: SimDevice, args: string[]): CommandOutput {
  if (args[0] !== undefined) return ok(`${device.state.properties[args[0]] ?? ''}\n`);
  const lines = Object.keys(device.state.properties)
    .sort()
    .map((key) => `[${key}]: [${device.state.properties[key]}]`);
  return ok(`${lines.join('\n')}\n`);
}

/** `settings get|put|list NAMESPACE …` on the sim's settings tables. */
export function settings(device: SimDevice, args: string[]): CommandOutput {
  const [verb, namespace, key, ...value] = args;
  const table =
    namespace === 'system' || namespace === 'secure' || namespace === 'global'
      ? device.state.settings[namespace]
      : undefined;
  if (!table) {
    return fail(
      `Invalid namespace '${namespace ?? ''}'\nusage:  settings [--user <USER_ID> | current] get namespace key\n`,
      255,
    );
  }
  if (verb === 'get' && key !== undefined) return ok(`${table.get(key) ?? 'null'}\n`);
  if (verb === 'put' && key !== undefined && value.length > 0) {
    table.set(key, value.join(' '));
    return ok('');
  }
  if (verb === 'delete' && key !== undefined) {
    const existed = table.delete(key);
    return ok(`Deleted ${existed ? 1 : 0} rows\n`);
  }
  if (verb === 'list') {
    return ok([...table].map(([name, current]) => `${name}=${current}\n`).join(''));
  }
  return fail('usage:  settings [--user <USER_ID> | current] get namespace key\n', 255);
}

/** `wm size` and `wm density`. */
export function wm(device: SimDevice, args: string[]): CommandOutput {
  if (args[0] === 'size')
    return ok(`Physical size: ${device.state.display.width}x${device.state.display.height}\n`);
  if (args[0] === 'density') return ok(`Physical density: ${device.state.display.density}\n`);
  if (args[0] === 'dismiss-keyguard') {
    if (!device.state.lockHasCredential) device.state.locked = false;
    return ok('');
  }
  return fail(`Unknown command: ${args[0] ?? ''}\n`, 255);
}

/** `ime list|set|enable …`: the input methods the sim has. */
export function ime(device: SimDevice, args: string[]): CommandOutput {
  if (args[0] === 'set' && args[1] !== undefined) {
    const [packageName] = args[1].split('/');
    if (packageName === undefined || !device.state.apps.has(packageName)) {
      return fail(`Unknown input method ${args[1]} cannot be selected for user #0\n`, 255);
    }
    device.state.settings.secure.set('default_input_method', args[1]);
    return ok(`Input method ${args[1]} selected for user #0\n`);
  }
  if (args[0] === 'list') {
    const ids = [
      LATIN_IME,
      ...(device.state.apps.has('com.android.adbkeyboard') ? [ADB_KEYBOARD_IME] : []),
    ];
    return ok(ids.map((id) => `${id}:\n`).join(''));
  }
  return fail('Unknown command\n', 255);
}

/** The input method in use: ADBKeyboard when it was set, else the Latin IME. */
export function currentIme(device: SimDevice): string {
  return device.state.settings.secure.get('default_input_method') ?? LATIN_IME;
}

/** The ADBKeyboard input method id. */
export const ADB_KEYBOARD_IME = 'com.android.adbkeyboard/.AdbIME';

/** The stock Latin input method id. */
const LATIN_IME = 'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME';
