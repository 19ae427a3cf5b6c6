// The scripted device: its state, screen, focus and keyboard, and running a command line; the
// commands themselves are in shell/.
import type { SimDeviceState, SimLogEntry, SimNode, SimScreen } from './device-model.js';
import { am, monkey } from './shell/activity-manager.js';
import { cat, logcat, screencap, uiautomator } from './shell/captures.js';
import { type CommandOutput, fail, ok } from './shell/command-output.js';
import { dumpsys } from './shell/dumpsys.js';
import { input } from './shell/input.js';
import { cmdMediaSession, volumeCtrl } from './shell/media-commands.js';
import { pm } from './shell/package-manager.js';
import { getprop, ime, settings, wm } from './shell/system-commands.js';
import { parseCommandLine } from './shell-words.js';
import { contains, isEditable } from './sim-node.js';
import { renderHierarchyXml, visibleChildren } from './ui-xml.js';

const KEYBOARD_HEIGHT = 800;

/**
 * The scripted device behind the ADB transport: runs shell command lines against its state and
 * prints what real Android prints for them. Unknown commands answer like toybox
 * (`/system/bin/sh: NAME: inaccessible or not found`, exit 127).
 */
export class SimDevice {
  /** The device state; tests change it directly (lock the screen, post a notification …). */
  readonly state: SimDeviceState;
  /** How many pages each scrolled list has moved down (absent: at the top). */
  readonly pages = new Map<SimNode, number>();

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
    this.ensureProcess(packageName);
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
    this.ensureProcess(next.packageName);
  }

  /** The `uiautomator dump` XML of the current screen. */
  dumpXml(): string {
    return renderHierarchyXml(
      this.screen,
      (node) => this.pages.get(node) ?? 0,
      this.keyboardNode(),
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
          mtime: this.seconds(),
        });
        out = Buffer.alloc(0);
      }
      stdout.push(out);
      stderr += err;
    }
    return { stdout: Buffer.concat(stdout), stderr, exitCode };
  }

  /** The device clock in whole seconds (file times, `date`). */
  seconds(): number {
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
        return getprop(this, args);
      case 'pm':
        return pm(this, args);
      case 'cmd':
        // `cmd` ships from Android 7.
        if (this.sdk() < 24) return fail('/system/bin/sh: cmd: not found\n', 127);
        if (args[0] === 'package') return pm(this, args.slice(1));
        if (args[0] === 'media_session') return cmdMediaSession(this, args.slice(1));
        return fail(`Can't find service: ${args[0] ?? ''}\n`, 20);
      case 'media':
        // cmds/media ships up to Android 10 (Android 11 moved it into `cmd media_session`); its
        // `volume` subcommand (VolumeCtrl, 2016) is answered from Android 8 here.
        if (this.sdk() >= 30)
          return fail('/system/bin/sh: media: inaccessible or not found\n', 127);
        if (args[0] !== 'volume' || this.sdk() < 26)
          return fail(`Error: unknown command '${args[0] ?? ''}'\n`, 1);
        return volumeCtrl(this, args.slice(1), '[v]');
      case 'dumpsys':
        return dumpsys(this, args);
      case 'am':
        return am(this, args);
      case 'monkey':
        return monkey(this, args);
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
        return settings(this, args);
      case 'wm':
        return wm(this, args);
      case 'input':
        return input(this, args);
      case 'ime':
        return ime(this, args);
      case 'uiautomator':
        return uiautomator(this, args);
      case 'screencap':
        return screencap(this, args);
      case 'logcat':
        return logcat(this, args);
      case 'cat':
        return cat(this, args);
      case 'rm':
        for (const path of args.filter((arg) => !arg.startsWith('-')))
          this.state.files.delete(path);
        return ok('');
      case 'date':
        return ok(`${this.seconds()}\n`);
      default:
        return fail(`/system/bin/sh: ${name ?? ''}: inaccessible or not found\n`, 127);
    }
  }

  /** The Android API level the device reports (`ro.build.version.sdk`). */
  sdk(): number {
    return Number(this.state.properties['ro.build.version.sdk'] ?? 34);
  }

  /** Ends a package's process (force-stop, uninstall), tells whoever listens, leaves its screens. */
  stopPackage(packageName: string): void {
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

  /** Gives a package a running process (a pid) unless it has one. */
  ensureProcess(packageName: string): void {
    if (!this.state.processes.has(packageName)) {
      this.state.processes.set(packageName, this.state.nextPid++);
    }
  }

  /** The soft keyboard's window node while it shows. */
  keyboardNode(): SimNode | undefined {
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

  /** Takes focus away from every node under `node`. */
  clearFocus(node: SimNode): void {
    if (node.focused) node.focused = false;
    for (const child of visibleChildren(node, (n) => this.pages.get(n) ?? 0))
      this.clearFocus(child);
  }

  /** The deepest visible node at (x, y) under `node` that `accept` takes. */
  deepestAt(
    node: SimNode,
    x: number,
    y: number,
    accept: (node: SimNode) => boolean,
  ): SimNode | undefined {
    if (!contains(this.boundsOf(node), x, y)) return undefined;
    const children = visibleChildren(node, (n) => this.pages.get(n) ?? 0);
    for (let index = children.length - 1; index >= 0; index--) {
      const found = this.deepestAt(children[index] as SimNode, x, y, accept);
      if (found) return found;
    }
    return accept(node) ? node : undefined;
  }

  #findNode(node: SimNode, accept: (node: SimNode) => boolean): SimNode | undefined {
    if (accept(node)) return node;
    for (const child of visibleChildren(node, (n) => this.pages.get(n) ?? 0)) {
      const found = this.#findNode(child, accept);
      if (found) return found;
    }
    return undefined;
  }
}
