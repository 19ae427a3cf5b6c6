// `input` (tap, swipe, text, keyevent) and what each does to the screen.
import type { SimDevice } from '../sim-device.js';
import { contains, isEditable } from '../sim-node.js';
import { type CommandOutput, fail, ok } from './command-output.js';

/** `input tap|swipe|text|keyevent …`: acts on the current screen as a finger or a keyboard would. */
export function input(device: SimDevice, args: string[]): CommandOutput {
  const [verb, ...rest] = args;
  const numbers = rest.map(Number);
  switch (verb) {
    case 'tap': {
      const [x, y] = numbers;
      if (x === undefined || y === undefined || Number.isNaN(x) || Number.isNaN(y)) {
        return fail('Error: Invalid arguments for command: tap\n', 1);
      }
      if (device.state.screenOn && !device.state.locked) tap(device, x, y);
      return ok('');
    }
    case 'swipe': {
      const [x1, y1, x2, y2] = numbers;
      if ([x1, y1, x2, y2].some((value) => value === undefined || Number.isNaN(value))) {
        return fail('Error: Invalid arguments for command: swipe\n', 1);
      }
      if (device.state.screenOn)
        swipe(device, x1 as number, y1 as number, x2 as number, y2 as number);
      return ok('');
    }
    case 'text': {
      const text = rest.join(' ');
      if ([...text].some((char) => char.charCodeAt(0) > 0x7e)) {
        // Stock `input text` maps characters through the virtual key character map; characters
        // outside it make the command throw.
        return fail(
          "Exception occurred while executing 'text':\njava.lang.NullPointerException: Attempt to get length of null array\n\tat com.android.server.input.InputShellCommand.sendText(InputShellCommand.java:371)\n",
          255,
        );
      }
      const field = device.focusedField;
      if (field && device.state.screenOn && !device.state.locked) {
        field.text = (field.text ?? '') + text.replaceAll('%s', ' ');
      }
      return ok('');
    }
    case 'keyevent': {
      for (const key of rest) {
        const code = /^\d+$/.test(key) ? Number(key) : KEYCODES[key];
        if (code === undefined) return fail(`Error: Unknown keycode: ${key}\n`, 1);
        keyevent(device, code);
      }
      return ok('');
    }
    default:
      return fail(`Error: Unknown command: ${verb ?? ''}\n`, 1);
  }
}

function tap(device: SimDevice, x: number, y: number): void {
  const keyboard = device.keyboardNode();
  if (keyboard && contains(keyboard.bounds, x, y)) return;
  const target = device.deepestAt(
    device.screen.root,
    x,
    y,
    (node) => Boolean(node.clickable) || isEditable(node),
  );
  if (!target) return;
  if (isEditable(target)) {
    device.clearFocus(device.screen.root);
    target.focused = true;
    return;
  }
  if (target.toggles) target.checked = !target.checked;
  if (target.goTo !== undefined) {
    device.clearFocus(device.screen.root);
    device.showScreen(target.goTo);
  }
}

function swipe(device: SimDevice, x1: number, y1: number, _x2: number, y2: number): void {
  if (device.state.locked && y2 < y1 - 300 && !device.state.lockHasCredential) {
    device.state.locked = false;
    return;
  }
  const list = device.deepestAt(device.screen.root, x1, y1, (node) =>
    Boolean(node.scrollable && node.pages),
  );
  if (!list?.pages) return;
  const page = device.pages.get(list) ?? 0;
  if (y2 < y1) device.pages.set(list, Math.min(list.pages.length - 1, page + 1));
  else if (y2 > y1) device.pages.set(list, Math.max(0, page - 1));
}

function keyevent(device: SimDevice, code: number): void {
  const session = device.state.mediaSessions[0];
  switch (code) {
    case 3:
      device.clearFocus(device.screen.root);
      device.showScreen('launcher');
      break;
    case 4:
      if (device.focusedField) {
        device.clearFocus(device.screen.root);
      } else if (device.state.backStack.length > 0) {
        device.state.screenId = device.state.backStack.pop() as string;
      }
      break;
    case 26:
      device.state.screenOn = !device.state.screenOn;
      if (!device.state.screenOn) device.state.locked = true;
      break;
    case 223:
      device.state.screenOn = false;
      device.state.locked = true;
      break;
    case 224:
      device.state.screenOn = true;
      break;
    case 82:
      if (device.state.screenOn && !device.state.lockHasCredential) device.state.locked = false;
      break;
    case 67: {
      const field = device.focusedField;
      if (field?.text) field.text = [...field.text].slice(0, -1).join('');
      break;
    }
    case 279: {
      const field = device.focusedField;
      if (field) field.text = (field.text ?? '') + device.state.clipboard;
      break;
    }
    case 24:
      device.state.volume = Math.min(15, device.state.volume + 1);
      break;
    case 25:
      device.state.volume = Math.max(0, device.state.volume - 1);
      break;
    case 164:
      device.state.volume = 0;
      break;
    case 85:
      if (session) session.state = session.state === 3 ? 2 : 3;
      break;
    case 126:
      if (session) session.state = 3;
      break;
    case 127:
      if (session) session.state = 2;
      break;
    case 86:
      if (session) session.state = 1;
      break;
    case 87:
      if (session) session.track = Math.min(session.tracks.length - 1, session.track + 1);
      break;
    case 88:
      if (session) session.track = Math.max(0, session.track - 1);
      break;
    default:
      break;
  }
}

const KEYCODES: Record<string, number> = {
  KEYCODE_HOME: 3,
  KEYCODE_BACK: 4,
  KEYCODE_VOLUME_UP: 24,
  KEYCODE_VOLUME_DOWN: 25,
  KEYCODE_POWER: 26,
  KEYCODE_ENTER: 66,
  KEYCODE_DEL: 67,
  KEYCODE_MENU: 82,
  KEYCODE_MEDIA_PLAY_PAUSE: 85,
  KEYCODE_MEDIA_STOP: 86,
  KEYCODE_MEDIA_NEXT: 87,
  KEYCODE_MEDIA_PREVIOUS: 88,
  KEYCODE_MEDIA_PLAY: 126,
  KEYCODE_MEDIA_PAUSE: 127,
  KEYCODE_VOLUME_MUTE: 164,
  KEYCODE_SLEEP: 223,
  KEYCODE_WAKEUP: 224,
  KEYCODE_PASTE: 279,
};
