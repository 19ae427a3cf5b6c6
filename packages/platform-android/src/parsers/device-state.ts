/** The foreground app and activity, from `dumpsys window` or `dumpsys activity activities`. */
export interface ForegroundApp {
  readonly packageName: string;
  /** Fully-qualified activity class, when known. */
  readonly activity?: string;
}

function expandActivity(packageName: string, activity: string): string {
  return activity.startsWith('.') ? `${packageName}${activity}` : activity;
}

const FOCUSED_WINDOW = /mCurrentFocus=Window\{\S+ (?:u\d+ )?([\w.]+)\/([\w.$]+)(?: [^}\s]+)?\}/;
const ACTIVITY_RECORD =
  /(?:mResumedActivity:|ResumedActivity:|topResumedActivity=|mFocusedApp=)\s*(?:AppWindowToken\{\S+ token=)?(?:Token\{\S+ )?ActivityRecord\{\S+ u\d+ ([\w.]+)\/([\w.$]+)/;

/**
 * The part of `dumpsys window displays` that belongs to the default display (`Display:
 * mDisplayId=0`, printed by `DisplayContent.dump` up to the next display or section), when the dump
 * has several displays; undefined with one display or none.
 */
function defaultDisplaySection(windowOutput: string): string | undefined {
  const headers = [...windowOutput.matchAll(/^[ \t]*Display: mDisplayId=(\d+)\b.*$/gm)];
  if (headers.length < 2) return undefined;
  const header = headers.find((match) => match[1] === '0');
  if (header === undefined) return undefined;
  const rest = windowOutput.slice(header.index + header[0].length);
  const end = rest.search(/\n(?:[ \t]*Display: mDisplayId=\d|\S)/);
  return rest.slice(0, end < 0 ? undefined : end);
}

function readForeground(output: string): ForegroundApp | undefined {
  const match = FOCUSED_WINDOW.exec(output) ?? ACTIVITY_RECORD.exec(output);
  if (!match) return undefined;
  return {
    packageName: match[1] as string,
    activity: expandActivity(match[1] as string, match[2] as string),
  };
}

/**
 * Reads the foreground app: `mCurrentFocus=Window{… u0 PKG/ACTIVITY}` (dumpsys window; Android 4.1
 * prints no `u0` and a trailing `paused=false`, Android 7+ a trailing `EXITING` while the window
 * leaves), else `mResumedActivity:` / `ResumedActivity:` / `topResumedActivity=` / `mFocusedApp=`
 * records (`ActivityRecord{… u0 PKG/.Activity t42}`, wrapped in `AppWindowToken{… token=Token{…}}`
 * up to Android 9), which differ across Android versions. With several displays (a cover screen,
 * a connected monitor), Android 10+ print focus per display and the default display's
 * (`mDisplayId=0`) focused window or focused app wins over another display's focused window.
 */
export function parseForegroundApp(output: string): ForegroundApp | undefined {
  const defaultDisplay = defaultDisplaySection(output);
  return (defaultDisplay && readForeground(defaultDisplay)) || readForeground(output);
}

/**
 * Whether the screen is on, from `dumpsys power`: `mWakefulness=Awake`, else `Display Power:
 * state=ON`, `mInteractive=` or the `mScreenOn=` of the Android 4 `Display Power State:` block.
 */
export function parseScreenOn(powerOutput: string): boolean | undefined {
  const wakefulness = /mWakefulness=(\w+)/.exec(powerOutput)?.[1];
  if (wakefulness !== undefined) return wakefulness === 'Awake';
  const display = /Display Power: state=(\w+)/.exec(powerOutput)?.[1];
  if (display !== undefined) return display === 'ON';
  const interactive = /mInteractive=(true|false)/.exec(powerOutput)?.[1];
  if (interactive !== undefined) return interactive === 'true';
  const screenOn = /\bmScreenOn=(true|false)/.exec(powerOutput)?.[1];
  return screenOn === undefined ? undefined : screenOn === 'true';
}

/**
 * Whether the keyguard shows, from `dumpsys window`: `isKeyguardShowing=` or `showing=` (Android
 * 10+ KeyguardServiceDelegate), `mShowingLockscreen=` / `mDreamingLockscreen=` (older policy dumps).
 */
export function parseLocked(windowOutput: string): boolean | undefined {
  for (const pattern of [
    /isKeyguardShowing=(true|false)/,
    /mShowingLockscreen=(true|false)/,
    /mDreamingLockscreen=(true|false)/,
    /^\s*showing=(true|false)/m,
  ]) {
    const value = pattern.exec(windowOutput)?.[1];
    if (value !== undefined) return value === 'true';
  }
  return undefined;
}

/**
 * Whether the focused window is secure: the `mAttrs` flags (`fl=… SECURE`) of the window named by
 * `mCurrentFocus` in `dumpsys window`. The flags are read from that window's own block in the window
 * list (`Window #N Window{ID …}:`); the policy (Android ≤ 9) or the display contents' DisplayPolicy
 * (Android 10+) name the focused window earlier (`mFocusedWindow=`,
 * `mTopFullscreenOpaqueWindowState=`), where no flags follow.
 */
export function parseSecureWindow(windowOutput: string): boolean | undefined {
  const focusPattern = /mCurrentFocus=Window\{(\S+) /;
  const focus =
    focusPattern.exec(defaultDisplaySection(windowOutput) ?? '')?.[1] ??
    focusPattern.exec(windowOutput)?.[1];
  if (focus === undefined) return undefined;
  const id = focus.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const header = new RegExp(`^[ \\t]*Window #\\d+ Window\\{${id} `, 'm').exec(windowOutput);
  const start = header?.index ?? windowOutput.indexOf(`Window{${focus} `);
  if (start < 0) return undefined;
  const afterHeader = windowOutput.indexOf('\n', start + 1);
  if (afterHeader < 0) return undefined;
  const nextWindow = windowOutput.slice(afterHeader).search(/\n\s*Window #\d+|\n\S/);
  const block = windowOutput.slice(start, nextWindow < 0 ? undefined : afterHeader + nextWindow);
  const flags = /\bfl=([^\n}]*)/.exec(block)?.[1];
  if (flags === undefined) return undefined;
  return /\bSECURE\b/.test(flags);
}

/** Whether the soft keyboard is shown, from `dumpsys input_method` (`mInputShown=`). */
export function parseKeyboardShown(inputMethodOutput: string): boolean | undefined {
  const value = /mInputShown=(true|false)/.exec(inputMethodOutput)?.[1];
  if (value !== undefined) return value === 'true';
  const visibility = /mImeWindowVis=(\d+)/.exec(inputMethodOutput)?.[1];
  return visibility === undefined
    ? undefined
    : (Number(visibility) & 2) !== 0 || Number(visibility) === 1;
}

/** The current input method id, from `dumpsys input_method` (`mCurMethodId=`). */
export function parseCurrentInputMethod(inputMethodOutput: string): string | undefined {
  const value = /mCurMethodId=(\S+)/.exec(inputMethodOutput)?.[1];
  return value === undefined || value === 'null' ? undefined : value;
}

/** `getprop` output (`[key]: [value]` lines) as a map. */
export function parseGetprop(output: string): Map<string, string> {
  const properties = new Map<string, string>();
  for (const match of output.matchAll(/^\[([^\]]+)\]: \[([^\]]*)\]$/gm)) {
    properties.set(match[1] as string, match[2] as string);
  }
  return properties;
}

/** `wm size` (`Physical size: 1080x2400`, with an optional `Override size:` that wins). */
export function parseWmSize(output: string): { width: number; height: number } | undefined {
  const match =
    /Override size: (\d+)x(\d+)/.exec(output) ?? /Physical size: (\d+)x(\d+)/.exec(output);
  return match ? { width: Number(match[1]), height: Number(match[2]) } : undefined;
}

/** `wm density` (`Physical density: 420`, with an optional `Override density:` that wins). */
export function parseWmDensity(output: string): number | undefined {
  const match = /Override density: (\d+)/.exec(output) ?? /Physical density: (\d+)/.exec(output);
  return match ? Number(match[1]) : undefined;
}
