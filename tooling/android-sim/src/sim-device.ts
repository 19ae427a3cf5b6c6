import { inflateRawSync as inflateRaw } from 'node:zlib';
import { readBinaryXml } from './binary-xml.js';
import type { SimApp, SimDeviceState, SimLogEntry, SimNode, SimScreen } from './device-model.js';
import { encodePng, type PngRectangle } from './png.js';
import { parseCommandLine } from './shell-words.js';
import { renderHierarchyXml, visibleChildren } from './ui-xml.js';

/** What one shell command produced. */
export interface CommandOutput {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly exitCode: number;
}

const KEYBOARD_HEIGHT = 800;
const ADB_KEYBOARD_IME = 'com.android.adbkeyboard/.AdbIME';
const LATIN_IME = 'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME';

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

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** `MM-DD HH:MM:SS.mmm` in UTC, as logcat's threadtime format prints it (device time zone UTC). */
export function formatLogTime(time: number): string {
  const date = new Date(time);
  return `${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}.${pad(date.getUTCMilliseconds(), 3)}`;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, as `dumpsys package` prints install times. */
function formatDumpsysTime(time: number): string {
  const date = new Date(time);
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

/** A threadtime logcat line (logprint.cpp: `%s %5d %5d %c %-8s: %s`). */
export function formatThreadtime(entry: SimLogEntry): string {
  return `${formatLogTime(entry.time)} ${String(entry.pid).padStart(5)} ${String(entry.tid).padStart(5)} ${entry.level} ${entry.tag.padEnd(8)}: ${entry.message}`;
}

function hexId(seed: string): string {
  let hash = 0x811c9dc5;
  for (const char of seed) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash.toString(16).padStart(7, '0').slice(0, 7);
}

function shortActivity(packageName: string, activity: string): string {
  return activity.startsWith(`${packageName}.`)
    ? `${packageName}/${activity.slice(packageName.length)}`
    : `${packageName}/${activity}`;
}

function contains(
  bounds: readonly [number, number, number, number],
  x: number,
  y: number,
): boolean {
  const [left, top, right, bottom] = bounds;
  return x >= left && x < right && y >= top && y < bottom;
}

/**
 * The scripted device behind the ADB transport: runs shell command lines against its state and
 * prints what real Android prints for them. Unknown commands answer like toybox
 * (`/system/bin/sh: NAME: inaccessible or not found`, exit 127).
 */
export class SimDevice {
  /** The device state; tests change it directly (lock the screen, post a notification …). */
  readonly state: SimDeviceState;
  readonly #pages = new Map<SimNode, number>();

  /**
   * Every command line run, oldest first, so a test can check what a tool asked the device for
   * (e.g. that it left out a large dump). Tests may clear it.
   */
  readonly commandLines: string[] = [];

  /** Called when a package is force-stopped or uninstalled (the sim ends its instrumentation). */
  onPackageStopped: ((packageName: string) => void) | undefined;

  constructor(state: SimDeviceState) {
    this.state = state;
  }

  /**
   * Types Unicode text into the focused field, as an input method does (not `input text`, which
   * only maps ASCII). With `replace` the field's text is replaced. Returns false when no field has
   * focus or the screen is off or locked.
   */
  typeText(text: string, options: { replace?: boolean } = {}): boolean {
    const field = this.focusedField;
    if (!field || !this.state.screenOn || this.state.locked) return false;
    field.text = options.replace ? text : (field.text ?? '') + text;
    return true;
  }

  /** Marks a package's process as running (an instrumentation started it). */
  startProcess(packageName: string): number {
    this.#ensureProcess(packageName);
    return this.state.processes.get(packageName) as number;
  }

  /** The screen shown now. */
  get screen(): SimScreen {
    const screen = this.state.screens.get(this.state.screenId);
    if (!screen) throw new Error(`the sim has no screen "${this.state.screenId}"`);
    return screen;
  }

  /** The focused editable node of the current screen, if any. */
  get focusedField(): SimNode | undefined {
    return this.#findNode(this.screen.root, (node) => Boolean(node.focused) && isEditable(node));
  }

  /** Whether the soft keyboard is up (an editable field has focus, screen on and unlocked). */
  get keyboardShown(): boolean {
    return this.state.screenOn && !this.state.locked && this.focusedField !== undefined;
  }

  /** Appends a logcat entry stamped with the device clock. */
  log(entry: Omit<SimLogEntry, 'time'> & { time?: number }): void {
    this.state.log.push({ ...entry, time: entry.time ?? this.state.now });
  }

  /** Shows a screen, pushing the current one on the back stack. */
  showScreen(screenId: string): void {
    const next = this.state.screens.get(screenId);
    if (!next) throw new Error(`the sim has no screen "${screenId}"`);
    if (screenId === this.state.screenId) return;
    this.state.backStack.push(this.state.screenId);
    this.state.screenId = screenId;
    this.#ensureProcess(next.packageName);
  }

  /** The `uiautomator dump` XML of the current screen. */
  dumpXml(): string {
    return renderHierarchyXml(
      this.screen,
      (node) => this.#pages.get(node) ?? 0,
      this.#keyboardNode(),
      (node) => this.boundsOf(node),
    );
  }

  /**
   * Where a node is drawn now. Windows resize for the keyboard (adjustResize): while it shows, a
   * node in the bottom strip it covers moves up above it, as a chat app's compose bar does.
   */
  boundsOf(node: SimNode): readonly [number, number, number, number] {
    const [left, top, right, bottom] = node.bounds;
    const { height } = this.state.display;
    if (this.keyboardShown && top >= height - KEYBOARD_HEIGHT && bottom <= height) {
      return [left, top - KEYBOARD_HEIGHT, right, bottom - KEYBOARD_HEIGHT];
    }
    return node.bounds;
  }

  /** Runs one command line (as `sh -c` would) and returns its output. */
  run(commandLine: string): CommandOutput {
    this.commandLines.push(commandLine);
    this.state.now += 7;
    let commands: ReturnType<typeof parseCommandLine>;
    try {
      commands = parseCommandLine(commandLine);
    } catch (error) {
      return { stdout: Buffer.alloc(0), stderr: `${(error as Error).message}\n`, exitCode: 2 };
    }
    const stdout: Buffer[] = [];
    let stderr = '';
    let exitCode = 0;
    for (const command of commands) {
      if (command.join === '&&' && exitCode !== 0) continue;
      if (command.join === '||' && exitCode === 0) continue;
      const output = this.#runOne(command.argv);
      exitCode = output.exitCode;
      let out = output.stdout;
      let err = output.stderr;
      if (command.stderrTo === '&1') {
        out = Buffer.concat([out, Buffer.from(err)]);
        err = '';
      } else if (command.stderrTo !== undefined) {
        err = '';
      }
      if (command.stdoutTo === '/dev/null') out = Buffer.alloc(0);
      else if (command.stdoutTo !== undefined) {
        this.state.files.set(command.stdoutTo, {
          data: out,
          mode: 0o100644,
          mtime: this.#seconds(),
        });
        out = Buffer.alloc(0);
      }
      stdout.push(out);
      stderr += err;
    }
    return { stdout: Buffer.concat(stdout), stderr, exitCode };
  }

  #seconds(): number {
    return Math.floor(this.state.now / 1000);
  }

  #runOne(argv: string[]): CommandOutput {
    const [name, ...args] = argv;
    switch (name) {
      case 'echo':
        return ok(`${args.join(' ')}\n`);
      case 'true':
        return ok('');
      case 'false':
        return { stdout: Buffer.alloc(0), stderr: '', exitCode: 1 };
      case 'getprop':
        return this.#getprop(args);
      case 'pm':
        return this.#pm(args);
      case 'cmd':
        // `cmd` ships from Android 7.
        if (this.#sdk() < 24) return fail('/system/bin/sh: cmd: not found\n', 127);
        if (args[0] === 'package') return this.#pm(args.slice(1));
        if (args[0] === 'media_session') return this.#cmdMediaSession(args.slice(1));
        return fail(`Can't find service: ${args[0] ?? ''}\n`, 20);
      case 'media':
        // cmds/media ships up to Android 10 (Android 11 moved it into `cmd media_session`); its
        // `volume` subcommand (VolumeCtrl, 2016) is answered from Android 8 here.
        if (this.#sdk() >= 30)
          return fail('/system/bin/sh: media: inaccessible or not found\n', 127);
        if (args[0] !== 'volume' || this.#sdk() < 26)
          return fail(`Error: unknown command '${args[0] ?? ''}'\n`, 1);
        return this.#volumeCtrl(args.slice(1), '[v]');
      case 'dumpsys':
        return this.#dumpsys(args);
      case 'am':
        return this.#am(args);
      case 'monkey':
        return this.#monkey(args);
      case 'ps': {
        if (args.includes('--help')) {
          return ok(
            'usage: ps [-AadefLlnwZ] [-gG GROUP,] [-k FIELD,] [-o FIELD,] [-p PID,] [-t TTY,] [-uU USER,]\n',
          );
        }
        // toybox ps -A columns; the sim lists the app processes it runs.
        const lines = ['USER            PID   PPID     VSZ    RSS WCHAN            ADDR S NAME'];
        for (const [packageName, pid] of this.state.processes) {
          lines.push(
            `u0_a${String(pid % 300).padEnd(9)} ${String(pid).padStart(5)}   1042 15083340 98712 0                   0 S ${packageName}`,
          );
        }
        return ok(`${lines.join('\n')}\n`);
      }
      case 'pidof': {
        const pids = args
          .map((pkg) => this.state.processes.get(pkg))
          .filter((pid) => pid !== undefined);
        return pids.length > 0
          ? ok(`${pids.join(' ')}\n`)
          : { stdout: Buffer.alloc(0), stderr: '', exitCode: 1 };
      }
      case 'settings':
        return this.#settings(args);
      case 'wm':
        return this.#wm(args);
      case 'input':
        return this.#input(args);
      case 'ime':
        return this.#ime(args);
      case 'uiautomator':
        return this.#uiautomator(args);
      case 'screencap':
        return this.#screencap(args);
      case 'logcat':
        return this.#logcat(args);
      case 'cat':
        return this.#cat(args);
      case 'rm':
        for (const path of args.filter((arg) => !arg.startsWith('-')))
          this.state.files.delete(path);
        return ok('');
      case 'date':
        return ok(`${this.#seconds()}\n`);
      default:
        return fail(`/system/bin/sh: ${name ?? ''}: inaccessible or not found\n`, 127);
    }
  }

  #getprop(args: string[]): CommandOutput {
    if (args[0] !== undefined) return ok(`${this.state.properties[args[0]] ?? ''}\n`);
    const lines = Object.keys(this.state.properties)
      .sort()
      .map((key) => `[${key}]: [${this.state.properties[key]}]`);
    return ok(`${lines.join('\n')}\n`);
  }

  #pm(args: string[]): CommandOutput {
    const [verb, ...rest] = args;
    if (verb === 'list' && rest[0] === 'packages') {
      const flags = rest.slice(1).filter((arg) => arg.startsWith('-'));
      const filter = rest.slice(1).find((arg) => !arg.startsWith('-'));
      const lines: string[] = [];
      for (const app of this.state.apps.values()) {
        if (flags.includes('-s') && !app.system) continue;
        if (flags.includes('-3') && app.system) continue;
        if (filter !== undefined && !app.packageName.includes(filter)) continue;
        const path = flags.includes('-f') ? `${apkPath(app)}=` : '';
        const version = flags.includes('--show-versioncode')
          ? ` versionCode:${app.versionCode}`
          : '';
        lines.push(`package:${path}${app.packageName}${version}`);
      }
      return ok(lines.length > 0 ? `${lines.join('\n')}\n` : '');
    }
    if (verb === 'list' && rest[0] === 'instrumentation') {
      const lines = [...this.state.apps.values()]
        .filter((app) => app.instrumentation !== undefined)
        .map(
          (app) =>
            `instrumentation:${app.packageName}/${app.instrumentation?.name} (target=${app.instrumentation?.targetPackage})`,
        );
      return ok(lines.length > 0 ? `${lines.join('\n')}\n` : '');
    }
    if (verb === 'path') {
      const app = rest[0] === undefined ? undefined : this.state.apps.get(rest[0]);
      return app
        ? ok(`package:${apkPath(app)}\n`)
        : { stdout: Buffer.alloc(0), stderr: '', exitCode: 1 };
    }
    if (verb === 'install') {
      const path = rest.filter((arg) => !arg.startsWith('-')).at(-1);
      const file = path === undefined ? undefined : this.state.files.get(path);
      if (!file) {
        return {
          stdout: Buffer.from(`\tpkg: ${path ?? ''}\nFailure [INSTALL_FAILED_INVALID_URI]\n`),
          stderr: '',
          exitCode: 1,
        };
      }
      const manifest = readApkManifest(file.data);
      if (!manifest) {
        return {
          stdout: Buffer.from(
            `\tpkg: ${path}\nFailure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse ${path}: Failed to load asset path ${path}]\n`,
          ),
          stderr: '',
          exitCode: 1,
        };
      }
      const existing = this.state.apps.get(manifest.packageName);
      if (existing && !rest.includes('-r')) {
        return {
          stdout: Buffer.from(
            `\tpkg: ${path}\nFailure [INSTALL_FAILED_ALREADY_EXISTS: Attempt to re-install ${manifest.packageName} without first uninstalling.]\n`,
          ),
          stderr: '',
          exitCode: 1,
        };
      }
      this.state.apps.set(manifest.packageName, {
        packageName: manifest.packageName,
        versionName: manifest.versionName,
        versionCode: manifest.versionCode,
        system: false,
        permissions: manifest.permissions,
        ...(manifest.instrumentation ? { instrumentation: manifest.instrumentation } : {}),
        firstInstallTime: existing?.firstInstallTime ?? this.state.now,
        lastUpdateTime: this.state.now,
      });
      return ok(`\tpkg: ${path}\nSuccess\n`);
    }
    if (verb === 'uninstall') {
      const packageName = rest.filter((arg) => !arg.startsWith('-')).at(-1) ?? '';
      const app = this.state.apps.get(packageName);
      if (!app)
        return {
          stdout: Buffer.from('Failure [DELETE_FAILED_INTERNAL_ERROR]\n'),
          stderr: '',
          exitCode: 1,
        };
      if (app.system)
        return {
          stdout: Buffer.from('Failure [DELETE_FAILED_INTERNAL_ERROR]\n'),
          stderr: '',
          exitCode: 1,
        };
      this.state.apps.delete(packageName);
      this.#stopPackage(packageName);
      return ok('Success\n');
    }
    return fail(`Unknown command: ${verb ?? ''}\n`, 1);
  }

  #dumpsys(args: string[]): CommandOutput {
    const [service, ...rest] = args;
    switch (service) {
      case 'package':
        return this.#dumpsysPackage(rest[0]);
      case 'activity':
        if (rest[0] === 'services') return ok(this.#dumpsysServices(rest[1]));
        return ok(this.#dumpsysActivities());
      case 'window':
        return ok(this.#dumpsysWindow());
      case 'power':
        return ok(this.#dumpsysPower());
      case 'input_method':
        return ok(this.#dumpsysInputMethod());
      case 'notification':
        return ok(this.#dumpsysNotification(rest.includes('--noredact')));
      case 'location':
        return ok(this.#dumpsysLocation());
      case 'media_session':
        return ok(this.#dumpsysMediaSession());
      case 'audio':
        return ok(this.#dumpsysAudio());
      case 'battery':
        return ok(
          'Current Battery Service state:\n  AC powered: false\n  USB powered: true\n  Wireless powered: false\n  Max charging current: 500000\n  status: 2\n  health: 2\n  present: true\n  level: 87\n  scale: 100\n  voltage: 4211\n  temperature: 281\n  technology: Li-ion\n',
        );
      default:
        return ok(`Can't find service: ${service ?? ''}\n`);
    }
  }

  /**
   * `dumpsys activity services [PACKAGE]`: a helper app the sim has no screens for (such as
   * io.appium.settings) runs a foreground service while its process lives.
   */
  #dumpsysServices(filter: string | undefined): string {
    const lines = ['ACTIVITY MANAGER SERVICES (dumpsys activity services)'];
    const running = [...this.state.processes.keys()].filter((packageName) => {
      const app = this.state.apps.get(packageName);
      return (
        app !== undefined &&
        !app.system &&
        (filter === undefined || packageName === filter) &&
        ![...this.state.screens.values()].some((screen) => screen.packageName === packageName)
      );
    });
    if (running.length === 0) return `${lines.join('\n')}\n  (nothing)\n`;
    lines.push('  User 0 active services:');
    for (const packageName of running) {
      const id = hexId(`${packageName}s`);
      lines.push(
        `  * ServiceRecord{${id} u0 ${packageName}/.ForegroundService}`,
        `    intent={cmp=${packageName}/.ForegroundService}`,
        `    packageName=${packageName}`,
        `    processName=${packageName}`,
        `    app=ProcessRecord{${hexId(`${packageName}p`)} ${this.state.processes.get(packageName)}:${packageName}/u0a${Number.parseInt(id, 16) % 900}}`,
        `    isForeground=true foregroundId=1 foregroundNoti=Notification(channel=main_channel)`,
        '    createTime=-1m2s isRunning=true',
      );
    }
    return `${lines.join('\n')}\n`;
  }

  #dumpsysPackage(packageName: string | undefined): CommandOutput {
    const app = packageName === undefined ? undefined : this.state.apps.get(packageName);
    if (!app) return ok(`Unable to find package: ${packageName ?? ''}\n`);
    const id = hexId(app.packageName);
    const lines = [
      'Activity Resolver Table:',
      '  Non-Data Actions:',
      '      android.intent.action.MAIN:',
      `        ${id} ${app.packageName}/.MainActivity filter ${hexId(`${app.packageName}f`)}`,
      '',
      'Packages:',
      `  Package [${app.packageName}] (${id}):`,
      `    userId=${10_000 + (Number.parseInt(id, 16) % 900)}`,
      `    pkg=Package{${id} ${app.packageName}}`,
      `    codePath=${apkPath(app).replace(/\/base\.apk$/, '')}`,
      `    resourcePath=${apkPath(app).replace(/\/base\.apk$/, '')}`,
      `    legacyNativeLibraryDir=${apkPath(app).replace(/\/base\.apk$/, '')}/lib`,
      '    primaryCpuAbi=arm64-v8a',
      `    versionCode=${app.versionCode} minSdk=${app.minSdk ?? 24} targetSdk=${app.targetSdk ?? 33}`,
      `    versionName=${app.versionName}`,
      '    splits=[base]',
      '    apkSigningVersion=2',
      `    applicationInfo=ApplicationInfo{${hexId(`${app.packageName}a`)} ${app.packageName}}`,
      `    flags=[ ${app.system ? 'SYSTEM ' : ''}HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]`,
      `    timeStamp=${formatDumpsysTime(app.lastUpdateTime)}`,
      `    firstInstallTime=${formatDumpsysTime(app.firstInstallTime)}`,
      `    lastUpdateTime=${formatDumpsysTime(app.lastUpdateTime)}`,
      `    installerPackageName=${app.system ? 'null' : 'com.android.vending'}`,
      '    signatures=PackageSignatures{a1b2c3d version:2, signatures:[5f0e1d2c], past signatures:[]}',
      '    installPermissionsFixed=true',
      '    pkgFlags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]',
      '    requested permissions:',
      ...app.permissions.map((permission) => `      ${permission}`),
      '    install permissions:',
      ...app.permissions
        .filter((permission) => INSTALL_PERMISSIONS.has(permission))
        .map((permission) => `      ${permission}: granted=true`),
      `    User 0: ceDataInode=${Number.parseInt(id, 16)} installed=true hidden=false suspended=false distractionFlags=0 stopped=false notLaunched=false enabled=0 instant=false virtual=false`,
      '      gids=[3003]',
      '      runtime permissions:',
      ...app.permissions
        .filter((permission) => !INSTALL_PERMISSIONS.has(permission))
        .map(
          (permission) =>
            `        ${permission}: granted=false, flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]`,
        ),
      '',
    ];
    return ok(`${lines.join('\n')}\n`);
  }

  #topRecord(): string {
    const screen = this.screen;
    return `ActivityRecord{${hexId(screen.id)} u0 ${shortActivity(screen.packageName, screen.activity)} t${40 + (Number.parseInt(hexId(screen.packageName), 16) % 50)}}`;
  }

  /**
   * `dumpsys activity activities` as Android 14 prints it: the task with its `topResumedActivity=`
   * (Android 10 replaced `mResumedActivity:`), the resumed activities and `ResumedActivity:`.
   */
  #dumpsysActivities(): string {
    const screen = this.screen;
    const taskNumber = 40 + (Number.parseInt(hexId(screen.packageName), 16) % 50);
    return [
      'ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)',
      'Display #0 (activities from top to bottom):',
      `  * Task{${hexId(`${screen.packageName}t`)} #${taskNumber} type=standard A=10123:${screen.packageName} U=0 visible=true visibleRequested=true mode=fullscreen translucent=false sz=1}`,
      '    isSleeping=false',
      `    topResumedActivity=${this.#topRecord()}`,
      `    * Hist  #0: ${this.#topRecord()}`,
      `        packageName=${screen.packageName} processName=${screen.packageName}`,
      '',
      '  Resumed activities in task display areas (from top to bottom):',
      `    Resumed: ${this.#topRecord()}`,
      '',
      `  ResumedActivity: ${this.#topRecord()}`,
      '',
    ].join('\n');
  }

  /**
   * `dumpsys window` in Android 14's section order: the policy (with `KeyguardServiceDelegate`), the
   * display contents (`mCurrentFocus`, `mFocusedApp`, `DisplayPolicy` with `isKeyguardShowing=` and
   * the focused window named again), then the window list whose `mAttrs` carry the flags.
   */
  #dumpsysWindow(): string {
    const screen = this.screen;
    const { locked, screenOn } = this.state;
    const windowName = `${screen.packageName}/${screen.activity}`;
    const appWindow = `Window{${hexId(windowName)} u0 ${windowName}}`;
    const shadeWindow = `Window{${hexId('keyguard')} u0 NotificationShade}`;
    const focus = locked ? shadeWindow : appWindow;
    const flags = `fl=LAYOUT_IN_SCREEN LAYOUT_INSET_DECOR SPLIT_TOUCH HARDWARE_ACCELERATED DRAWS_SYSTEM_BAR_BACKGROUNDS${screen.secure ? ' SECURE' : ''}`;
    const { width, height, density } = this.state.display;
    return [
      'WINDOW MANAGER POLICY STATE (dumpsys window policy)',
      '    mSafeMode=false mSystemReady=true mSystemBooted=true',
      '    KeyguardServiceDelegate',
      `      showing=${locked}`,
      `      showingAndNotOccluded=${locked}`,
      `      inputRestricted=${locked}`,
      '      occluded=false',
      `      secure=${this.state.lockHasCredential}`,
      '      dreaming=false',
      '      systemIsReady=true',
      '      deviceHasKeyguard=true',
      '      enabled=true',
      '      currentUser=0',
      '      bootCompleted=true',
      `      screenState=${screenOn ? 'SCREEN_STATE_ON' : 'SCREEN_STATE_OFF'}`,
      `      interactiveState=${screenOn ? 'INTERACTIVE_STATE_AWAKE' : 'INTERACTIVE_STATE_SLEEP'}`,
      '      KeyguardStateMonitor',
      `        mIsShowing=${locked}`,
      '        mSimSecure=false',
      `        mInputRestricted=${locked}`,
      '        mTrusted=false',
      '        mCurrentUserId=0',
      '',
      'WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)',
      '  Display: mDisplayId=0 rootTasks=3',
      `    init=${width}x${height} ${density}dpi cur=${width}x${height} app=${width}x${height - 144} rng=1080x1017-2400x2337`,
      '',
      `  mCurrentFocus=${focus}`,
      `  mFocusedApp=${this.#topRecord()}`,
      '',
      '  DisplayPolicy',
      `    mAwake=${screenOn} mScreenOnEarly=${screenOn} mScreenOnFully=${screenOn}`,
      '    mShowingDream=false mDreamingLockscreen=false',
      `    mStatusBar=Window{${hexId('statusbar')} u0 StatusBar}`,
      `    mExpandedPanel=${shadeWindow}`,
      `    isKeyguardShowing=${locked}`,
      `    mFocusedWindow=${focus}`,
      `    mTopFullscreenOpaqueWindowState=${appWindow}`,
      '',
      'WINDOW MANAGER WINDOWS (dumpsys window windows)',
      `  Window #0 ${appWindow}:`,
      `    mDisplayId=0 rootTaskId=42 mSession=Session{${hexId('session')} 1234:u0a10123} mClient=android.os.BinderProxy@${hexId('client')}`,
      `    mAttrs={(0,0)(fillxfill) sim={adjust=resize} ty=BASE_APPLICATION fmt=TRANSPARENT wanim=0x10302f8`,
      `      ${flags}`,
      '      pfl=FORCE_DRAW_STATUS_BAR_BACKGROUND FIT_INSETS_CONTROLLED}',
      '',
      `  mInputMethodWindow=Window{${hexId('ime')} u0 InputMethod}`,
      '',
    ].join('\n');
  }

  #dumpsysPower(): string {
    return [
      'POWER MANAGER (dumpsys power)',
      '',
      'Power Manager State:',
      '  mDirty=0x0',
      `  mWakefulness=${this.state.screenOn ? 'Awake' : 'Asleep'}`,
      `  mWakefulnessChanging=false`,
      '  mIsPowered=true',
      '  mPlugType=2',
      `  mInteractive=${this.state.screenOn}`,
      `  mHoldingDisplaySuspendBlocker=${this.state.screenOn}`,
      '',
      `Display Power: state=${this.state.screenOn ? 'ON' : 'OFF'}`,
      '',
    ].join('\n');
  }

  #currentIme(): string {
    return this.state.settings.secure.get('default_input_method') ?? LATIN_IME;
  }

  #dumpsysInputMethod(): string {
    const shown = this.keyboardShown;
    const field = this.focusedField;
    return [
      'Current Input Method Manager state:',
      '  Input Methods: mMethodMapUpdateCount=3',
      `  mCurMethodId=${this.#currentIme()}`,
      `  mCurFocusedWindow=Window{${hexId(this.screen.packageName)} u0 ${this.screen.packageName}/${this.screen.activity}}`,
      `  mCurFocusedWindowSoftInputMode=STATE_UNSPECIFIED|ADJUST_RESIZE|IS_FORWARD_NAVIGATION`,
      `  mCurAttribute=${field ? `EditorInfo{inputType=0x${field.password ? '81' : '1'} imeOptions=0x6 privateImeOptions=null}` : 'null'}`,
      `  mImeWindowVis=${shown ? 3 : 0}`,
      `  mInputShown=${shown}`,
      `  mShowRequested=${shown} mShowExplicitlyRequested=false mShowForced=false`,
      '',
    ].join('\n');
  }

  #dumpsysNotification(noRedact: boolean): string {
    const lines = ['Current Notification Manager state:', '  Notification List:'];
    for (const notification of this.state.notifications) {
      const key = `0|${notification.packageName}|${notification.id}|null|10123`;
      const title = noRedact ? notification.title : `[${notification.title.length}]`;
      const text = noRedact ? notification.text : `[${notification.text.length}]`;
      lines.push(
        `    NotificationRecord(0x${hexId(key)}: pkg=${notification.packageName} user=UserHandle{0} id=${notification.id} tag=null importance=4 key=${key}: Notification(channel=${notification.channel ?? 'default'} shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x10 color=0x00000000 vis=PRIVATE))`,
        `      uid=10123 userId=0`,
        `      opPkg=${notification.packageName}`,
        `      icon=Icon(typ=RESOURCE pkg=${notification.packageName} id=0x7f080123)`,
        `      pri=0`,
        `      key=${key}`,
        `      seen=false`,
        `      postTime=${notification.postTime}`,
        '      extras={',
        `        android.title=String (${title})`,
        `        android.text=String (${text})`,
        '        android.subText=null',
        '        android.showWhen=Boolean (true)',
        '      }',
      );
    }
    lines.push('', '  mSnoozedNotifications:', '');
    return lines.join('\n');
  }

  /**
   * `dumpsys location` as Android 12+ prints it: a block per provider with its `last location=`
   * (`null` when it has none); the passive provider repeats the last fix of any provider.
   */
  #dumpsysLocation(): string {
    const location = this.state.location;
    let record = 'null';
    if (location) {
      const ageMs = Math.max(0, this.state.now - location.time);
      const altitude =
        location.altitude === undefined ? '' : ` alt=${location.altitude.toFixed(1)}`;
      record = `Location[${location.provider} ${location.latitude.toFixed(6)},${location.longitude.toFixed(6)} hAcc=${location.accuracy} et=+${Math.floor(ageMs / 1000)}s${ageMs % 1000}ms${altitude} vAcc=??? sAcc=??? bAcc=???]`;
    }
    const lines = [
      'Location Manager State:',
      '  User Info:',
      '    current user: [0]',
      `  Location Setting: ${location !== undefined}`,
      '  Location Providers:',
    ];
    for (const provider of ['passive', 'network', 'fused', 'gps']) {
      const own = provider === 'passive' || provider === location?.provider;
      lines.push(
        `    ${provider} provider:`,
        `      last location=${own ? record : 'null'}`,
        '      enabled=true',
      );
    }
    lines.push('');
    return lines.join('\n');
  }

  /**
   * `dumpsys media_session` as Android 14 prints it (`MediaSessionService.dump`): the sessions under
   * `Record for full_user=0`, each with a `PlaybackState` whose state prints as `NAME(code)`.
   */
  #dumpsysMediaSession(): string {
    const sessions = this.state.mediaSessions;
    const top = sessions[0];
    const lines = [
      'MEDIA SESSION SERVICE (dumpsys media_session)',
      '',
      '2 sessions listeners.',
      'Global priority session is null',
      'User Records:',
      'Record for full_user=0',
      '  Media key listener: null',
      '  Last MediaButtonReceiver: null',
      `  Media button session is ${top ? `${top.packageName}/media-session (userId=0)` : 'null'}`,
      `  Sessions Stack - have ${sessions.length} sessions:`,
    ];
    for (const session of sessions) {
      const track = session.tracks[session.track];
      lines.push(
        `    media-session ${session.packageName}/media-session (userId=0)`,
        `      ownerPid=${this.state.processes.get(session.packageName) ?? 0}, ownerUid=10150, userId=0`,
        `      package=${session.packageName}`,
        '      launchIntent=null',
        '      mediaButtonReceiver=null',
        `      active=${session.active ?? true}`,
        '      flags=3',
        '      rating type=0',
        '      controllers: 1',
        session.state === 0
          ? '      state=null'
          : `      state=PlaybackState {state=${PLAYBACK_STATE_NAMES[session.state] ?? 'UNKNOWN'}(${session.state}), position=12000, buffered position=0, speed=${session.state === 3 ? '1.0' : '0.0'}, updated=${this.state.now}, actions=3670015, custom actions=[], active item id=-1, error=null}`,
        '      audioAttrs=AudioAttributes: usage=USAGE_MEDIA content=CONTENT_TYPE_MUSIC flags=0x800 tags= bundle=null',
        '      volumeType=LOCAL, controlType=ABSOLUTE, max=0, current=0, volumeControlId=null',
        `      metadata: size=5, description=${track ? `${track.title}, ${track.artist}, ${track.album}` : 'null'}`,
        '      queueTitle=null, size=0',
      );
    }
    lines.push('');
    return lines.join('\n');
  }

  /**
   * `dumpsys audio`, only its `Stream volumes (device: index)` list for the music stream, as
   * Android 14 prints it (`AudioService.dumpStreamStates`); the output device is the speaker.
   */
  #dumpsysAudio(): string {
    const volume = this.state.volume;
    return [
      'Stream volumes (device: index)',
      '- STREAM_MUSIC:',
      '   Muted: false',
      '   Muted Internally: false',
      '   Min: 0',
      '   Max: 15',
      `   streamVolume:${volume}`,
      `   Current: 2 (speaker): ${volume}, 40000000 (default): ${volume}`,
      '   Devices: speaker(2)',
      '   Volume Group: AUDIO_STREAM_MUSIC',
      '',
    ].join('\n');
  }

  #sdk(): number {
    return Number(this.state.properties['ro.build.version.sdk'] ?? 34);
  }

  /**
   * `cmd media_session` (`MediaShellCommand`, Android 11+); only its `volume` subcommand. Before
   * Android 11 the service has no shell command, and `Binder.onShellCommand` says so.
   */
  #cmdMediaSession(args: string[]): CommandOutput {
    if (this.#sdk() < 30) return fail('No shell command implementation.\n', 255);
    if (args[0] !== 'volume') return fail(`Error: unknown command '${args[0] ?? ''}'\n`, 255);
    return this.#volumeCtrl(args.slice(1), '[V]');
  }

  /**
   * `VolumeCtrl.run` for the music stream (stream 3): `--stream N`, `--get`, `--set INDEX`,
   * `--adj raise|same|lower`, each option logged as `LOG_V` (`[V]` in `cmd media_session`, `[v]` in
   * the older `media` command) before the read-back `volume is N in range [0..15]`.
   */
  #volumeCtrl(args: string[], logV: string): CommandOutput {
    const lines: string[] = [];
    let stream = 3;
    let get = false;
    let set: number | undefined;
    let adjust: string | undefined;
    for (let index = 0; index < args.length; index++) {
      const option = args[index];
      if (option === '--get') {
        get = true;
        lines.push(`${logV} will get volume`);
      } else if (option === '--stream') {
        stream = Number(args[++index]);
        lines.push(
          `${logV} will control stream=${stream} (${stream === 3 ? 'STREAM_MUSIC' : 'invalid stream'})`,
        );
      } else if (option === '--set') {
        set = Number(args[++index]);
        lines.push(`${logV} will set volume to index=${set}`);
      } else if (option === '--adj') {
        adjust = args[++index];
        lines.push(`${logV} will adjust volume`);
      } else if (option !== '--show') {
        return fail(`Error: java.lang.IllegalArgumentException: Unknown argument ${option}\n`, 255);
      }
    }
    lines.push(`${logV} Connecting to AudioService`);
    if (stream !== 3) return fail('Error: the simulator has only the music stream (3)\n', 255);
    if (set !== undefined) {
      if (!Number.isInteger(set) || set < 0 || set > 15)
        return fail(
          `Error: invalid volume index ${set} for stream 3 (should be in [0..15])\n`,
          255,
        );
      this.state.volume = set;
    } else if (adjust === 'raise') this.state.volume = Math.min(15, this.state.volume + 1);
    else if (adjust === 'lower') this.state.volume = Math.max(0, this.state.volume - 1);
    if (get) lines.push(`${logV} volume is ${this.state.volume} in range [0..15]`);
    return ok(`${lines.join('\n')}\n`);
  }

  #am(args: string[]): CommandOutput {
    const [verb, ...rest] = args;
    if (verb === 'start' || verb === 'start-activity') {
      const componentIndex = rest.indexOf('-n');
      const component = componentIndex >= 0 ? rest[componentIndex + 1] : undefined;
      if (component === undefined)
        return fail('Error: Activity not started, unable to resolve Intent\n', 1);
      const [packageName = '', activityPart = ''] = component.split('/');
      const activity = activityPart.startsWith('.')
        ? `${packageName}${activityPart}`
        : activityPart;
      const screen = [...this.state.screens.values()].find(
        (candidate) => candidate.packageName === packageName && candidate.activity === activity,
      );
      const wait = rest.includes('-W');
      const app = this.state.apps.get(packageName);
      const drawsNothing =
        app !== undefined &&
        !app.system &&
        ![...this.state.screens.values()].some(
          (candidate) => candidate.packageName === packageName,
        );
      if (!screen && drawsNothing) {
        // An installed app the sim has no screens for (a helper such as io.appium.settings): its
        // activity starts its process and finishes at once, leaving the screen as it was.
        this.#ensureProcess(packageName);
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
      const cold = !this.state.processes.has(packageName);
      this.showScreen(screen.id);
      this.log({
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
      this.#stopPackage(packageName);
      return ok('');
    }
    if (verb === 'broadcast') return this.#broadcast(rest);
    return fail(`Error: Unknown command: ${verb ?? ''}\n`, 1);
  }

  #broadcast(args: string[]): CommandOutput {
    const action = args[args.indexOf('-a') + 1] ?? '';
    const extra = (flag: string, name: string): string | undefined => {
      for (let index = 0; index < args.length - 2; index++) {
        if (args[index] === flag && args[index + 1] === name) return args[index + 2];
      }
      return undefined;
    };
    const head = `Broadcasting: Intent { flg=0x400000 act=${action}${args.length > 2 ? ' (has extras)' : ''} }\n`;
    if (action.startsWith('clipper.') && this.state.apps.has('ca.zgrs.clipper')) {
      if (action === 'clipper.set') {
        this.state.clipboard = extra('-e', 'text') ?? extra('--es', 'text') ?? '';
        return ok(`${head}Broadcast completed: result=-1, data="Text is copied into clipboard."\n`);
      }
      if (action === 'clipper.get') {
        return ok(`${head}Broadcast completed: result=-1, data="${this.state.clipboard}"\n`);
      }
    }
    if (
      action.startsWith('ADB_') &&
      this.#currentIme() === ADB_KEYBOARD_IME &&
      this.state.apps.has('com.android.adbkeyboard')
    ) {
      const field = this.focusedField;
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

  #monkey(args: string[]): CommandOutput {
    const packageIndex = args.indexOf('-p');
    const packageName = packageIndex >= 0 ? args[packageIndex + 1] : undefined;
    const app = packageName === undefined ? undefined : this.state.apps.get(packageName);
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
    this.showScreen(app.launchScreen);
    return ok(
      `${echo}\nargs: [${args.join(', ')}]\nEvents injected: 1\n## Network stats: elapsed time=15ms (0ms mobile, 0ms wifi, 15ms not connected)\n`,
    );
  }

  #stopPackage(packageName: string): void {
    this.state.processes.delete(packageName);
    this.onPackageStopped?.(packageName);
    if (this.screen.packageName === packageName) {
      while (this.state.backStack.length > 0) {
        const previous = this.state.backStack.pop() as string;
        if (this.state.screens.get(previous)?.packageName !== packageName) {
          this.state.screenId = previous;
          return;
        }
      }
      this.state.screenId = 'launcher';
    }
  }

  #ensureProcess(packageName: string): void {
    if (!this.state.processes.has(packageName)) {
      this.state.processes.set(packageName, this.state.nextPid++);
    }
  }

  #settings(args: string[]): CommandOutput {
    const [verb, namespace, key, ...value] = args;
    const table =
      namespace === 'system' || namespace === 'secure' || namespace === 'global'
        ? this.state.settings[namespace]
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

  #wm(args: string[]): CommandOutput {
    if (args[0] === 'size')
      return ok(`Physical size: ${this.state.display.width}x${this.state.display.height}\n`);
    if (args[0] === 'density') return ok(`Physical density: ${this.state.display.density}\n`);
    if (args[0] === 'dismiss-keyguard') {
      if (!this.state.lockHasCredential) this.state.locked = false;
      return ok('');
    }
    return fail(`Unknown command: ${args[0] ?? ''}\n`, 255);
  }

  #ime(args: string[]): CommandOutput {
    if (args[0] === 'set' && args[1] !== undefined) {
      const [packageName] = args[1].split('/');
      if (packageName === undefined || !this.state.apps.has(packageName)) {
        return fail(`Unknown input method ${args[1]} cannot be selected for user #0\n`, 255);
      }
      this.state.settings.secure.set('default_input_method', args[1]);
      return ok(`Input method ${args[1]} selected for user #0\n`);
    }
    if (args[0] === 'list') {
      const ids = [
        LATIN_IME,
        ...(this.state.apps.has('com.android.adbkeyboard') ? [ADB_KEYBOARD_IME] : []),
      ];
      return ok(ids.map((id) => `${id}:\n`).join(''));
    }
    return fail('Unknown command\n', 255);
  }

  #uiautomator(args: string[]): CommandOutput {
    if (args[0] !== 'dump') return fail(`Unknown command: ${args[0] ?? ''}\n`, 1);
    if (!this.state.screenOn) {
      return fail('ERROR: null root node returned by UiTestAutomationBridge.\n', 1);
    }
    if (this.state.uiautomatorError !== undefined)
      return fail(`${this.state.uiautomatorError}\n`, 1);
    const target = args.slice(1).find((arg) => !arg.startsWith('--')) ?? '/sdcard/window_dump.xml';
    const xml = this.state.uiautomatorXml ?? this.dumpXml();
    if (target === '/dev/tty')
      return {
        stdout: Buffer.concat([
          Buffer.from(xml),
          Buffer.from('UI hierchary dumped to: /dev/tty\n'),
        ]),
        stderr: '',
        exitCode: 0,
      };
    this.state.files.set(target, {
      data: Buffer.from(xml),
      mode: 0o100660,
      mtime: this.#seconds(),
    });
    return ok(`UI hierchary dumped to: ${target}\n`);
  }

  #screencap(args: string[]): CommandOutput {
    const { width, height } = this.state.display;
    // A full-size capture is large; the sim renders at a quarter of each side to stay fast, which is
    // still a valid PNG with the device's aspect ratio.
    const scale = 4;
    const smallWidth = Math.round(width / scale);
    const smallHeight = Math.round(height / scale);
    let png: Buffer;
    if (!this.state.screenOn || this.screen.secure) {
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
        for (const child of visibleChildren(node, (n) => this.#pages.get(n) ?? 0))
          paint(child, depth + 1);
      };
      paint(this.screen.root, 0);
      png = encodePng(smallWidth, smallHeight, [250, 250, 250], rectangles);
    }
    if (args.includes('-p') || args.length === 0) {
      const file = args.find((arg) => arg.startsWith('/'));
      if (file !== undefined) {
        this.state.files.set(file, { data: png, mode: 0o100660, mtime: this.#seconds() });
        return ok('');
      }
      return { stdout: png, stderr: '', exitCode: 0 };
    }
    return fail('usage: screencap [-hp] [-d display-id] [FILENAME]\n', 1);
  }

  #logcat(args: string[]): CommandOutput {
    let entries = [...this.state.log];
    for (let index = 0; index < args.length; index++) {
      const arg = args[index] as string;
      if (arg.startsWith('--pid=')) {
        const pid = Number(arg.slice('--pid='.length));
        entries = entries.filter((entry) => entry.pid === pid);
      } else if (arg === '-t' || arg === '-T') {
        const value = args[++index] ?? '';
        if (/^\d+$/.test(value)) entries = entries.slice(-Number(value));
        else {
          const since = parseLogTime(value, this.state.now);
          if (since === undefined) return fail(`logcat: Invalid time: ${value}\n`, 1);
          entries = entries.filter((entry) => entry.time >= since);
        }
      } else if (arg === '-c') {
        this.state.log.length = 0;
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

  #cat(args: string[]): CommandOutput {
    const out: Buffer[] = [];
    for (const path of args) {
      const file = this.state.files.get(path);
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

  #input(args: string[]): CommandOutput {
    const [verb, ...rest] = args;
    const numbers = rest.map(Number);
    switch (verb) {
      case 'tap': {
        const [x, y] = numbers;
        if (x === undefined || y === undefined || Number.isNaN(x) || Number.isNaN(y)) {
          return fail('Error: Invalid arguments for command: tap\n', 1);
        }
        if (this.state.screenOn && !this.state.locked) this.#tap(x, y);
        return ok('');
      }
      case 'swipe': {
        const [x1, y1, x2, y2] = numbers;
        if ([x1, y1, x2, y2].some((value) => value === undefined || Number.isNaN(value))) {
          return fail('Error: Invalid arguments for command: swipe\n', 1);
        }
        if (this.state.screenOn)
          this.#swipe(x1 as number, y1 as number, x2 as number, y2 as number);
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
        const field = this.focusedField;
        if (field && this.state.screenOn && !this.state.locked) {
          field.text = (field.text ?? '') + text.replaceAll('%s', ' ');
        }
        return ok('');
      }
      case 'keyevent': {
        for (const key of rest) {
          const code = /^\d+$/.test(key) ? Number(key) : KEYCODES[key];
          if (code === undefined) return fail(`Error: Unknown keycode: ${key}\n`, 1);
          this.#keyevent(code);
        }
        return ok('');
      }
      default:
        return fail(`Error: Unknown command: ${verb ?? ''}\n`, 1);
    }
  }

  #tap(x: number, y: number): void {
    const keyboard = this.#keyboardNode();
    if (keyboard && contains(keyboard.bounds, x, y)) return;
    const target = this.#deepestAt(
      this.screen.root,
      x,
      y,
      (node) => Boolean(node.clickable) || isEditable(node),
    );
    if (!target) return;
    if (isEditable(target)) {
      this.#clearFocus(this.screen.root);
      target.focused = true;
      return;
    }
    if (target.toggles) target.checked = !target.checked;
    if (target.goTo !== undefined) {
      this.#clearFocus(this.screen.root);
      this.showScreen(target.goTo);
    }
  }

  #swipe(x1: number, y1: number, _x2: number, y2: number): void {
    if (this.state.locked && y2 < y1 - 300 && !this.state.lockHasCredential) {
      this.state.locked = false;
      return;
    }
    const list = this.#deepestAt(this.screen.root, x1, y1, (node) =>
      Boolean(node.scrollable && node.pages),
    );
    if (!list?.pages) return;
    const page = this.#pages.get(list) ?? 0;
    if (y2 < y1) this.#pages.set(list, Math.min(list.pages.length - 1, page + 1));
    else if (y2 > y1) this.#pages.set(list, Math.max(0, page - 1));
  }

  #keyevent(code: number): void {
    const session = this.state.mediaSessions[0];
    switch (code) {
      case 3:
        this.#clearFocus(this.screen.root);
        this.showScreen('launcher');
        break;
      case 4:
        if (this.focusedField) {
          this.#clearFocus(this.screen.root);
        } else if (this.state.backStack.length > 0) {
          this.state.screenId = this.state.backStack.pop() as string;
        }
        break;
      case 26:
        this.state.screenOn = !this.state.screenOn;
        if (!this.state.screenOn) this.state.locked = true;
        break;
      case 223:
        this.state.screenOn = false;
        this.state.locked = true;
        break;
      case 224:
        this.state.screenOn = true;
        break;
      case 82:
        if (this.state.screenOn && !this.state.lockHasCredential) this.state.locked = false;
        break;
      case 67: {
        const field = this.focusedField;
        if (field?.text) field.text = [...field.text].slice(0, -1).join('');
        break;
      }
      case 279: {
        const field = this.focusedField;
        if (field) field.text = (field.text ?? '') + this.state.clipboard;
        break;
      }
      case 24:
        this.state.volume = Math.min(15, this.state.volume + 1);
        break;
      case 25:
        this.state.volume = Math.max(0, this.state.volume - 1);
        break;
      case 164:
        this.state.volume = 0;
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

  #keyboardNode(): SimNode | undefined {
    if (!this.keyboardShown) return undefined;
    const { width, height } = this.state.display;
    const top = height - KEYBOARD_HEIGHT;
    const keys: SimNode[] = [];
    const rows = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
    rows.forEach((row, rowIndex) => {
      const keyWidth = Math.floor(width / 10);
      [...row].forEach((letter, column) => {
        const left = column * keyWidth + rowIndex * Math.floor(keyWidth / 2);
        const rowTop = top + 100 + rowIndex * 160;
        keys.push({
          className: 'android.widget.FrameLayout',
          contentDesc: letter,
          bounds: [left, rowTop, left + keyWidth, rowTop + 150],
          clickable: true,
        });
      });
    });
    return {
      className: 'android.widget.FrameLayout',
      resourceId: 'com.google.android.inputmethod.latin:id/keyboard_holder',
      bounds: [0, top, width, height],
      children: keys,
    };
  }

  #clearFocus(node: SimNode): void {
    if (node.focused) node.focused = false;
    for (const child of visibleChildren(node, (n) => this.#pages.get(n) ?? 0))
      this.#clearFocus(child);
  }

  #deepestAt(
    node: SimNode,
    x: number,
    y: number,
    accept: (node: SimNode) => boolean,
  ): SimNode | undefined {
    if (!contains(this.boundsOf(node), x, y)) return undefined;
    const children = visibleChildren(node, (n) => this.#pages.get(n) ?? 0);
    for (let index = children.length - 1; index >= 0; index--) {
      const found = this.#deepestAt(children[index] as SimNode, x, y, accept);
      if (found) return found;
    }
    return accept(node) ? node : undefined;
  }

  #findNode(node: SimNode, accept: (node: SimNode) => boolean): SimNode | undefined {
    if (accept(node)) return node;
    for (const child of visibleChildren(node, (n) => this.#pages.get(n) ?? 0)) {
      const found = this.#findNode(child, accept);
      if (found) return found;
    }
    return undefined;
  }
}

/** `PlaybackState.getStringForStateInt`, which Android 13+ prints before the state code. */
const PLAYBACK_STATE_NAMES: Record<number, string> = {
  0: 'NONE',
  1: 'STOPPED',
  2: 'PAUSED',
  3: 'PLAYING',
  4: 'FAST_FORWARDING',
  5: 'REWINDING',
  6: 'BUFFERING',
  7: 'ERROR',
  8: 'CONNECTING',
  9: 'SKIPPING_TO_PREVIOUS',
  10: 'SKIPPING_TO_NEXT',
  11: 'SKIPPING_TO_QUEUE_ITEM',
};

const INSTALL_PERMISSIONS = new Set([
  'android.permission.INTERNET',
  'android.permission.ACCESS_NETWORK_STATE',
  'android.permission.WAKE_LOCK',
  'android.permission.VIBRATE',
  'android.permission.FOREGROUND_SERVICE',
  'android.permission.RECEIVE_BOOT_COMPLETED',
]);

/** Whether a node takes text input. */
export function isEditable(node: SimNode): boolean {
  return node.className === 'android.widget.EditText' || node.className.endsWith('.EditText');
}

function apkPath(app: SimApp): string {
  return app.system
    ? `/system/priv-app/${app.packageName.split('.').at(-1)}/${app.packageName.split('.').at(-1)}.apk`
    : `/data/app/~~${hexId(app.packageName)}==/${app.packageName}-${hexId(`${app.packageName}i`)}==/base.apk`;
}

function ok(stdout: string): CommandOutput {
  return { stdout: Buffer.from(stdout), stderr: '', exitCode: 0 };
}

function fail(stderr: string, exitCode: number): CommandOutput {
  return { stdout: Buffer.alloc(0), stderr, exitCode };
}

function parseLogTime(value: string, now: number): number | undefined {
  const match = /^(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3})$/.exec(value);
  if (!match) return undefined;
  const year = new Date(now).getUTCFullYear();
  const [, month, day, hours, minutes, seconds, millis] = match.map(Number) as number[];
  return Date.UTC(year, (month as number) - 1, day, hours, minutes, seconds, millis);
}

/** What the sim reads from an APK: the manifest's package, version, permissions and instrumentation. */
export interface ApkManifest {
  readonly packageName: string;
  readonly versionName: string;
  readonly versionCode: number;
  readonly permissions: string[];
  /** The `<instrumentation>` the APK declares (a test APK such as the UiAutomator2 server's). */
  readonly instrumentation?: { readonly name: string; readonly targetPackage: string };
}

/** The stored or deflated bytes of one zip entry, found through the central directory. */
function readZipEntry(data: Buffer, wanted: string): Buffer | undefined {
  let end = -1;
  for (let offset = data.length - 22; offset >= Math.max(0, data.length - 65_557); offset--) {
    if (data.readUInt32LE(offset) === 0x06054b50) {
      end = offset;
      break;
    }
  }
  if (end < 0) {
    // No central directory (a truncated or hand-made archive): walk the local headers.
    let local = 0;
    while (local + 30 <= data.length && data.readUInt32LE(local) === 0x04034b50) {
      const method = data.readUInt16LE(local + 8);
      const compressedSize = data.readUInt32LE(local + 18);
      const nameLength = data.readUInt16LE(local + 26);
      const start = local + 30 + nameLength + data.readUInt16LE(local + 28);
      if (data.toString('utf8', local + 30, local + 30 + nameLength) === wanted) {
        const body = data.subarray(start, start + compressedSize);
        return method === 8 ? inflateRaw(body) : body;
      }
      local = start + compressedSize;
    }
    return undefined;
  }
  const count = data.readUInt16LE(end + 10);
  let offset = data.readUInt32LE(end + 16);
  for (let index = 0; index < count && offset + 46 <= data.length; index++) {
    if (data.readUInt32LE(offset) !== 0x02014b50) return undefined;
    const method = data.readUInt16LE(offset + 10);
    const compressedSize = data.readUInt32LE(offset + 20);
    const nameLength = data.readUInt16LE(offset + 28);
    const extraLength = data.readUInt16LE(offset + 30);
    const commentLength = data.readUInt16LE(offset + 32);
    const local = data.readUInt32LE(offset + 42);
    const name = data.toString('utf8', offset + 46, offset + 46 + nameLength);
    if (name === wanted) {
      if (local + 30 > data.length || data.readUInt32LE(local) !== 0x04034b50) return undefined;
      const start = local + 30 + data.readUInt16LE(local + 26) + data.readUInt16LE(local + 28);
      const body = data.subarray(start, start + compressedSize);
      return method === 8 ? inflateRaw(body) : body;
    }
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return undefined;
}

/**
 * Reads the manifest of an APK (a zip archive): finds `AndroidManifest.xml` through the central
 * directory and reads the package, version, permissions and instrumentation from it. Accepts the
 * compiled binary manifest real build tools write, or a text manifest.
 */
export function readApkManifest(data: Buffer): ApkManifest | undefined {
  if (data.length < 22 || data.readUInt32LE(0) !== 0x04034b50) return undefined;
  let manifest: Buffer | undefined;
  try {
    manifest = readZipEntry(data, 'AndroidManifest.xml');
  } catch {
    return undefined;
  }
  if (!manifest) return undefined;
  const elements = readBinaryXml(manifest);
  if (elements) {
    const root = elements.find((element) => element.name === 'manifest');
    const packageName = root?.attributes.package;
    if (!root || !packageName) return undefined;
    const instrumentation = elements.find((element) => element.name === 'instrumentation');
    return {
      packageName,
      versionName: root.attributes.versionName ?? '1.0',
      versionCode: Number(root.attributes.versionCode ?? '1'),
      permissions: elements
        .filter((element) => element.name === 'uses-permission')
        .map((element) => element.attributes.name ?? ''),
      ...(instrumentation?.attributes.name !== undefined
        ? {
            instrumentation: {
              name: instrumentation.attributes.name,
              targetPackage: instrumentation.attributes.targetPackage ?? packageName,
            },
          }
        : {}),
    };
  }
  const text = manifest.toString('utf8');
  const packageName = /package="([^"]+)"/.exec(text)?.[1];
  if (!packageName) return undefined;
  return {
    packageName,
    versionName: /android:versionName="([^"]+)"/.exec(text)?.[1] ?? '1.0',
    versionCode: Number(/android:versionCode="(\d+)"/.exec(text)?.[1] ?? '1'),
    permissions: [...text.matchAll(/uses-permission[^>]*android:name="([^"]+)"/g)].map(
      (match) => match[1] as string,
    ),
  };
}
