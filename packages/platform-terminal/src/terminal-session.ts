import { readlink } from 'node:fs/promises';
import type { IPty } from '@lydell/node-pty';
import type { HandleOwner } from '@toolsys/core-tool-registry';
import { withTaskMark } from '@toolsys/platform';
import type xterm from '@xterm/headless';
import { OutputRing, type RingRead } from './output-ring.js';
import {
  findSessionProcesses,
  isWaitingOnTerminal,
  listProcesses,
  type ProcessStat,
  readProcessStat,
} from './process-state.js';
import { loadPty, loadXterm } from './pty-backend.js';
import { MarkFilter } from './shell-marks.js';

/** What a session is doing, as the model sees it. */
export type SessionState = 'idle' | 'running' | 'waiting_for_input' | 'exited';

/**
 * How the session learns where commands start and end: `bash` marks starts and ends, `prompt`
 * (sh, dash, busybox ash, zsh) marks each prompt with the last exit code, `none` marks nothing.
 */
export type ShellIntegration = 'bash' | 'prompt' | 'none';

/** Where the session's shell runs. */
export type SessionBackend = 'local' | 'proot';

/** A command boundary seen in the output (from shell-integration marks). */
export interface SessionEvent {
  /** Increasing number of the event within the session; pass the last one seen as a cursor. */
  readonly sequence: number;
  readonly kind: 'command_start' | 'command_end' | 'exit';
  /** Milliseconds since the epoch. */
  readonly at: number;
  /** Raw-output offset where the event happened. */
  readonly offset: number;
  /** Exit code for `command_end` and `exit` (null when unknown). */
  readonly exitCode: number | null;
}

/** The screen as text. */
export interface ScreenSnapshot {
  /** Visible rows, trailing blank rows removed. */
  readonly lines: string[];
  readonly cols: number;
  readonly rows: number;
  /** Cursor position, 0-based, within the visible rows. */
  readonly cursor: { readonly row: number; readonly col: number };
  /** Whether a full-screen program (vim, less, top) has the alternate screen. */
  readonly alternateScreen: boolean;
  /** The title set by the program (OSC 0/2), or ''. */
  readonly title: string;
  /** Scrollback rows above the visible screen, oldest first (only when asked for). */
  readonly scrollback?: string[];
}

/** How a wait ended. */
export type WaitOutcome = 'matched' | 'timeout' | 'aborted' | 'exited';

type PtySpawn = ReturnType<typeof loadPty>['spawn'];

/** Options for {@link TerminalSession.start}. */
export interface TerminalSessionOptions {
  /** Session id (unique within the manager). */
  readonly id: string;
  /** Program to start (absolute path or a name on PATH). */
  readonly file: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Working directory (absolute). */
  readonly cwd: string;
  /** The complete environment of the shell (already scrubbed). */
  readonly env: Readonly<Record<string, string>>;
  /** Columns and rows of the terminal. */
  readonly cols: number;
  readonly rows: number;
  /** Bytes of raw output kept for cursor reads. */
  readonly ringBytes: number;
  /** Lines the screen keeps above the visible rows. Default 1000. */
  readonly scrollback?: number;
  /** Whether the shell prints our command marks. */
  readonly integration: ShellIntegration;
  readonly backend: SessionBackend;
  /**
   * Whether the program is bubblewrap running the shell in the OS sandbox: the shell is then the
   * grandchild of the PTY's process (bwrap, then bwrap as the PID namespace's init).
   */
  readonly sandboxed?: boolean;
  /** Shown in listings: the shell's name and the cwd relative to the workspace. */
  readonly shellName: string;
  /** `NAME=value` placed in the environment to find processes that left the session (setsid). */
  readonly marker: string;
  /** The secret that the shell's marks carry ({@link newMarkKey}); marks without it are text. */
  readonly markKey: string;
  /** The principal and client session that opened it: only that pair may see or use it. */
  readonly owner: HandleOwner;
  /** Clock in ms since the epoch. */
  readonly now: () => number;
}

const MAX_EVENTS = 500;
const STATE_POLL_MS = 100;
/** Longest {@link TerminalSession.close} waits for killed processes to be gone. */
const PROCESS_END_WAIT_MS = 2_000;

/**
 * One shell on a real PTY. Output goes, with shell marks removed, to a headless xterm (the screen)
 * and to a bounded raw ring read by cursor. Closing ends every process of the session.
 */
export class TerminalSession {
  readonly id: string;
  readonly createdAt: number;
  readonly backend: SessionBackend;
  /** Whether the shell runs inside the OS sandbox (workspace read-only, no network). */
  readonly sandboxed: boolean;
  readonly integration: ShellIntegration;
  readonly shellName: string;
  /** The principal and client session that opened it. */
  readonly owner: HandleOwner;
  private readonly process: IPty;
  private readonly terminal: xterm.Terminal;
  private readonly ring: OutputRing;
  private readonly filter: MarkFilter;
  private readonly events: SessionEvent[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly options: TerminalSessionOptions;
  private nextSequence = 1;
  private title = '';
  private commandActive = false;
  /** A command line was sent and the shell has not yet said it started or ended. */
  private commandSent = false;
  private promptCount = 0;
  private lastCommandStartOffset: number | undefined;
  private exitInfo: { exitCode: number | null; signal: number | null } | undefined;
  private closed = false;
  private ttyPath: string | undefined;
  /** Process id of the shell when a wrapper (proot, bwrap) started it, once found. */
  private wrappedShellPid: number | undefined;
  /** Exit code of the last command that ended (null before any, or when unknown). */
  lastExitCode: number | null = null;
  /** Last input or output, ms since the epoch (idle reaping). */
  lastActivity: number;
  /** Last output by the wall clock, ms since the epoch (quiet detection). */
  lastOutputAt: number;

  private constructor(options: TerminalSessionOptions, process: IPty) {
    this.options = options;
    this.id = options.id;
    this.backend = options.backend;
    this.sandboxed = options.sandboxed === true;
    this.integration = options.integration;
    this.shellName = options.shellName;
    this.owner = options.owner;
    this.filter = new MarkFilter(options.markKey);
    this.createdAt = options.now();
    this.lastActivity = this.createdAt;
    this.lastOutputAt = Date.now();
    this.process = process;
    this.ring = new OutputRing(options.ringBytes);
    const { Terminal } = loadXterm();
    this.terminal = new Terminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback ?? 1000,
      allowProposedApi: true,
    });
    this.terminal.onTitleChange((title) => {
      this.title = title;
    });
    // Answers to the program's terminal queries (cursor position, device attributes) go back to it.
    this.terminal.onData((data) => {
      if (!this.exitInfo) this.process.write(data);
    });
    process.onData((chunk) => this.receive(chunk as unknown as Buffer));
    process.onExit(({ exitCode, signal }) => {
      const rest = this.filter.flush();
      if (rest.length > 0) this.appendOutput(rest);
      this.exitInfo = { exitCode: signal ? null : exitCode, signal: signal || null };
      this.commandActive = false;
      this.commandSent = false;
      if (!signal) this.lastExitCode = exitCode;
      this.pushEvent('exit', signal ? null : exitCode);
      this.notify();
    });
  }

  /** Starts the program on a new PTY. Throws when the PTY cannot be opened (caller reports it). */
  static start(options: TerminalSessionOptions): TerminalSession {
    const pty = loadPty();
    const child = pty.spawn(options.file, [...options.args], {
      name: 'xterm-256color',
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd,
      // A session opened for a task carries its mark: cancelling the task ends what runs in it.
      env: withTaskMark({ ...options.env }),
      // Raw bytes: a UTF-8 sequence split between chunks must not become U+FFFD.
      encoding: null,
    } as Parameters<PtySpawn>[2]);
    return new TerminalSession(options, child);
  }

  /** Process id of the program the PTY started (the session leader). */
  get pid(): number {
    return this.process.pid;
  }

  /** Columns and rows now. */
  get size(): { cols: number; rows: number } {
    return { cols: this.terminal.cols, rows: this.terminal.rows };
  }

  /** Offset just after the newest raw byte: a cursor for "from now on". */
  get outputEnd(): number {
    return this.ring.end;
  }

  /** Offset of the oldest raw byte still held. */
  get outputStart(): number {
    return this.ring.start;
  }

  /** Number of prompts the shell has printed (grows by one when a command ends). */
  get prompts(): number {
    return this.promptCount;
  }

  /** Whether a command was sent or started and the shell has not reported its end yet. */
  get isCommandActive(): boolean {
    return this.commandActive || this.commandSent;
  }

  /**
   * Records that a command line was just sent, so that the session counts as busy until the shell
   * marks its start or end (shells with integration only; others send no marks).
   */
  noteCommandSent(): void {
    if (this.integration !== 'none' && !this.exitInfo) this.commandSent = true;
  }

  /** Raw-output offset of the latest command start mark. */
  get commandStartOffset(): number | undefined {
    return this.lastCommandStartOffset;
  }

  /** Exit status of the program, once it has exited. */
  get exit(): { exitCode: number | null; signal: number | null } | undefined {
    return this.exitInfo;
  }

  /** Whether {@link close} was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** The session's working directory (that of its shell), or undefined when unknown. */
  async currentDirectory(): Promise<string | undefined> {
    if (this.exitInfo) return undefined;
    // The workspace is bound at its own path in the sandbox, so the shell's folder reads the same.
    const pid = this.sandboxed ? ((await this.shellProcess())?.pid ?? this.pid) : this.pid;
    return readlink(`/proc/${pid}/cwd`).catch(() => undefined);
  }

  /**
   * The shell's process when a wrapper started it: proot's traced child, or the grandchild of
   * bubblewrap (whose child is the PID namespace's init). Undefined without a wrapper, or while
   * the shell has not started yet.
   */
  private async shellProcess(): Promise<ProcessStat | undefined> {
    const depth = this.sandboxed ? 2 : this.backend === 'proot' ? 1 : 0;
    if (depth === 0) return undefined;
    if (this.wrappedShellPid !== undefined) {
      const known = await readProcessStat(this.wrappedShellPid);
      if (known !== undefined) return known;
    }
    const all = await listProcesses();
    let current: ProcessStat | undefined;
    let parent = this.pid;
    for (let level = 0; level < depth; level += 1) {
      current = all.find((stat) => stat.parentPid === parent);
      if (current === undefined) return undefined;
      parent = current.pid;
    }
    this.wrappedShellPid = current?.pid;
    return current;
  }

  /**
   * Sends text to the program as typed input. A submitted line (Enter) makes the session busy
   * until the shell prints its next prompt mark: the shell, or what it started, is handling it.
   */
  write(data: string): void {
    if (this.exitInfo || this.closed) return;
    this.lastActivity = this.options.now();
    if (/[\r\n]/.test(data)) this.noteCommandSent();
    this.process.write(data);
  }

  /** Reads raw output (marks removed) from a cursor. */
  read(cursor: number, maxBytes?: number): RingRead {
    return this.ring.read(cursor, maxBytes);
  }

  /** Events after `sequence` (0 for all that are still held). */
  eventsAfter(sequence: number): SessionEvent[] {
    return this.events.filter((event) => event.sequence > sequence);
  }

  /** Sequence number of the newest event (0 when none). */
  get lastEventSequence(): number {
    return this.nextSequence - 1;
  }

  /** Changes the size of the PTY and the screen. */
  resize(cols: number, rows: number): void {
    if (this.exitInfo || this.closed) return;
    this.process.resize(cols, rows);
    this.terminal.resize(cols, rows);
  }

  /** The session's state, from shell marks and the kernel's view of the terminal. */
  async state(): Promise<SessionState> {
    if (this.exitInfo || this.closed) return 'exited';
    const leader = await readProcessStat(this.pid);
    if (leader === undefined) return 'exited';
    let shellPid = this.pid;
    let shellGroup = leader.processGroup;
    // Behind proot or bubblewrap the shell's own process (and its group, which an interactive
    // bash makes its own) is the one that holds the prompt.
    const shell = await this.shellProcess();
    if (shell !== undefined) {
      shellPid = shell.pid;
      shellGroup = shell.processGroup;
    }
    const foreground = leader.terminalForegroundGroup;
    const shellInForeground = foreground === shellGroup || foreground <= 0;
    if (shellInForeground && !this.isCommandActive) {
      // With marks, no line submitted since the last prompt means idle. Without them, a shell in
      // the foreground that is not reading the terminal is still busy (a builtin loop).
      if (this.integration !== 'none') return 'idle';
      return (await this.isWaiting([shellPid])) ? 'idle' : 'running';
    }
    const members = shellInForeground
      ? [shellPid]
      : (await listProcesses())
          .filter((stat) => stat.processGroup === foreground)
          .map((stat) => stat.pid);
    return (await this.isWaiting(members)) ? 'waiting_for_input' : 'running';
  }

  private async isWaiting(pids: readonly number[]): Promise<boolean> {
    const tty = await this.terminalPath();
    if (tty === undefined) return false;
    for (const pid of pids) {
      if ((await isWaitingOnTerminal(pid, tty)) === true) return true;
    }
    return false;
  }

  private async terminalPath(): Promise<string | undefined> {
    if (this.ttyPath === undefined) {
      const fromPty = (this.process as unknown as { ptsName?: unknown }).ptsName;
      this.ttyPath =
        typeof fromPty === 'string' && fromPty.length > 0
          ? fromPty
          : await readlink(`/proc/${this.pid}/fd/0`).catch(() => undefined);
    }
    return this.ttyPath;
  }

  /** Process ids in the foreground process group of the terminal (for signals). */
  async foregroundGroup(): Promise<number | undefined> {
    if (this.exitInfo) return undefined;
    const leader = await readProcessStat(this.pid);
    if (leader === undefined) return undefined;
    return leader.terminalForegroundGroup > 0
      ? leader.terminalForegroundGroup
      : leader.processGroup;
  }

  /** The screen as text, after every byte received so far has been parsed. */
  async snapshot(options: { scrollbackLines?: number } = {}): Promise<ScreenSnapshot> {
    await this.settled();
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < this.terminal.rows; row += 1) {
      lines.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? '');
    }
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    const snapshot: ScreenSnapshot = {
      lines,
      cols: this.terminal.cols,
      rows: this.terminal.rows,
      cursor: { row: buffer.cursorY, col: buffer.cursorX },
      alternateScreen: buffer.type === 'alternate',
      title: this.title,
    };
    const wanted = options.scrollbackLines ?? 0;
    if (wanted > 0) {
      const first = Math.max(0, buffer.viewportY - wanted);
      const scrollback: string[] = [];
      for (let row = first; row < buffer.viewportY; row += 1) {
        scrollback.push(buffer.getLine(row)?.translateToString(true) ?? '');
      }
      return { ...snapshot, scrollback };
    }
    return snapshot;
  }

  /** Resolves once the screen has parsed everything received so far. */
  settled(): Promise<void> {
    return new Promise((resolve) => this.terminal.write('', resolve));
  }

  /**
   * Waits until `predicate` holds (checked on output, marks, exit, and every 100 ms), the time
   * runs out, the signal fires, or the program exits. Never waits past `timeoutMs`.
   */
  waitFor(
    predicate: () => boolean | Promise<boolean>,
    options: { timeoutMs: number; signal?: AbortSignal; onTick?: (elapsedMs: number) => void },
  ): Promise<WaitOutcome> {
    return new Promise((resolve) => {
      const started = Date.now();
      let done = false;
      let checking = false;
      let again = false;
      const finish = (outcome: WaitOutcome): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearInterval(poll);
        this.listeners.delete(check);
        options.signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const check = (): void => {
        if (done) return;
        if (checking) {
          again = true;
          return;
        }
        checking = true;
        Promise.resolve()
          .then(predicate)
          .then(
            (matched) => {
              checking = false;
              if (matched) finish('matched');
              else if (this.exitInfo) finish('exited');
              else if (again) {
                again = false;
                check();
              }
            },
            () => {
              checking = false;
            },
          );
      };
      const onAbort = (): void => finish('aborted');
      const timer = setTimeout(() => finish('timeout'), Math.max(0, options.timeoutMs));
      const poll = setInterval(() => {
        options.onTick?.(Date.now() - started);
        check();
      }, STATE_POLL_MS);
      if (options.signal?.aborted) {
        finish('aborted');
        return;
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.listeners.add(check);
      check();
    });
  }

  /**
   * Ends every process of the session (its process group, its session, descendants, and processes
   * that carry its marker after `setsid`), then the PTY. Safe to call twice.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const pids = await findSessionProcesses(this.pid, this.options.marker);
    for (const pid of pids) signalQuietly(pid, 'SIGHUP');
    for (const pid of pids) signalQuietly(pid, 'SIGCONT');
    await this.waitFor(() => this.exitInfo !== undefined, { timeoutMs: 300 });
    // Whatever ignored the hangup is killed, including processes it started meanwhile.
    const remaining = await findSessionProcesses(this.pid, this.options.marker);
    for (const pid of remaining) signalQuietly(pid, 'SIGKILL');
    try {
      this.process.kill('SIGKILL');
    } catch {
      // Already gone.
    }
    await this.waitFor(() => this.exitInfo !== undefined, { timeoutMs: 1_000 });
    // A killed process lingers until the kernel has torn it down (inside the sandbox, until the
    // PID namespace's init is gone): the session counts as closed only once they all are.
    const signalled = [...pids, ...remaining];
    const giveUpAt = Date.now() + PROCESS_END_WAIT_MS;
    while ((await anyAlive(signalled)) && Date.now() < giveUpAt) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    this.listeners.clear();
    this.terminal.dispose();
  }

  private receive(chunk: Buffer): void {
    this.lastActivity = this.options.now();
    this.lastOutputAt = Date.now();
    for (const piece of this.filter.push(chunk)) {
      if (piece.kind === 'data') {
        this.appendOutput(piece.data);
        continue;
      }
      this.commandSent = false;
      if (piece.mark.kind === 'start') {
        this.commandActive = true;
        this.lastCommandStartOffset = this.ring.end;
        this.pushEvent('command_start', null);
      } else {
        const wasActive = this.commandActive;
        this.commandActive = false;
        this.promptCount += 1;
        if (wasActive || this.promptCount > 1) {
          this.lastExitCode = piece.mark.exitCode;
          this.pushEvent('command_end', piece.mark.exitCode);
        }
      }
    }
    this.notify();
  }

  private appendOutput(data: Buffer): void {
    this.ring.append(data);
    this.terminal.write(data);
  }

  private pushEvent(kind: SessionEvent['kind'], exitCode: number | null): void {
    this.events.push({
      sequence: this.nextSequence,
      kind,
      at: this.options.now(),
      offset: this.ring.end,
      exitCode,
    });
    this.nextSequence += 1;
    if (this.events.length > MAX_EVENTS) this.events.splice(0, this.events.length - MAX_EVENTS);
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

async function anyAlive(pids: readonly number[]): Promise<boolean> {
  for (const pid of pids) {
    const stat = await readProcessStat(pid);
    if (stat !== undefined && stat.state !== 'Z' && stat.state !== 'X') return true;
  }
  return false;
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // The process already ended.
  }
}
