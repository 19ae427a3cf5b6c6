import type { ToolEnvironmentRule, ToolEnvironmentState } from '@toolsys/core-tool-registry';
import type { AdbCallOptions, AndroidDevice } from './android-device.js';
import {
  type ForegroundApp,
  parseForegroundApp,
  parseKeyboardShown,
  parseLocked,
  parseScreenOn,
  parseSecureWindow,
} from './parsers/device-state.js';

/** Telemetry keys this package feeds into the environment state. */
export const AndroidSignals = {
  /** boolean: the display is on. */
  screenOn: 'android.screen.on',
  /** boolean: the keyguard (lock screen) shows. */
  locked: 'android.screen.locked',
  /** boolean: the soft keyboard is shown. */
  keyboardShown: 'ime.shown',
  /** string: package of the foreground app. */
  foregroundPackage: 'foreground.package',
  /** boolean: the focused window is FLAG_SECURE. */
  secureWindow: 'android.window.secure',
} as const;

/** A snapshot of the device's state as the UI tools care about it. */
export interface DeviceTelemetry {
  readonly serial: string;
  readonly screenOn?: boolean;
  readonly locked?: boolean;
  readonly keyboardShown?: boolean;
  readonly secureWindow?: boolean;
  readonly foreground?: ForegroundApp;
}

/** Reads screen, lock, keyboard, secure-window and foreground state with three dumpsys calls. */
export async function readDeviceTelemetry(
  device: AndroidDevice,
  options: AdbCallOptions = {},
): Promise<DeviceTelemetry> {
  const [window, power, inputMethod] = await Promise.all([
    device.shell('dumpsys window', options),
    device.shell('dumpsys power', options),
    device.shell('dumpsys input_method', options),
  ]);
  const telemetry: { -readonly [K in keyof DeviceTelemetry]: DeviceTelemetry[K] } = {
    serial: device.serial,
  };
  const screenOn = parseScreenOn(power);
  if (screenOn !== undefined) telemetry.screenOn = screenOn;
  const locked = parseLocked(window);
  if (locked !== undefined) telemetry.locked = locked;
  const keyboardShown = parseKeyboardShown(inputMethod);
  if (keyboardShown !== undefined) telemetry.keyboardShown = keyboardShown;
  const secureWindow = parseSecureWindow(window);
  if (secureWindow !== undefined) telemetry.secureWindow = secureWindow;
  const foreground = parseForegroundApp(window);
  if (foreground) telemetry.foreground = foreground;
  return telemetry;
}

/** Records telemetry in the environment state (only what was observed). */
export function recordTelemetry(
  state: ToolEnvironmentState | undefined,
  telemetry: DeviceTelemetry,
): void {
  if (!state) return;
  if (telemetry.screenOn !== undefined) state.set(AndroidSignals.screenOn, telemetry.screenOn);
  if (telemetry.locked !== undefined) state.set(AndroidSignals.locked, telemetry.locked);
  if (telemetry.keyboardShown !== undefined)
    state.set(AndroidSignals.keyboardShown, telemetry.keyboardShown);
  if (telemetry.secureWindow !== undefined)
    state.set(AndroidSignals.secureWindow, telemetry.secureWindow);
  if (telemetry.foreground)
    state.set(AndroidSignals.foregroundPackage, telemetry.foreground.packageName);
}

/** Rules for tools that act on the screen: it must be on and unlocked. */
export const SCREEN_RULES: readonly ToolEnvironmentRule[] = [
  {
    signal: AndroidSignals.screenOn,
    blocks: (value) => value === false,
    message: 'The device screen is off.',
    hint: 'Turn the screen on (power button on the device), then retry; get_device_info shows the state.',
  },
  {
    signal: AndroidSignals.locked,
    blocks: (value) => value === true,
    message: 'The device is locked (the lock screen shows).',
    hint: 'Unlock the device first (swipe up or enter the PIN on the device), then retry.',
  },
];

/** Rule for input_text: a field must have focus, so the keyboard shows. */
export const KEYBOARD_RULE: ToolEnvironmentRule = {
  signal: AndroidSignals.keyboardShown,
  blocks: (value, rawArgs) => value === false && !hasTarget(rawArgs),
  message: 'No text field has focus (the on-screen keyboard is not shown).',
  hint: 'Tap an input field first (ui_tap), or pass "ref" of the field to input_text, then retry.',
};

function hasTarget(rawArgs: unknown): boolean {
  if (typeof rawArgs !== 'object' || rawArgs === null) return false;
  const args = rawArgs as Record<string, unknown>;
  return typeof args.ref === 'string' || typeof args.resourceId === 'string';
}
