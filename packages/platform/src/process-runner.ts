import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { containsSecretShape } from '@toolsys/core-tool-registry/text';
import { approvedEnvironment } from './approved-environment.js';
import { signalMarkedProcesses, withTaskMark } from './process-scope.js';

/** Options for {@link runProcess}. */
export interface RunProcessOptions {
  /** The command line, run as `bash -c <command>`. */
  command: string;
  /** Working directory; must exist. */
  cwd: string;
  /** Environment of the child. Default: the allow-list of {@link approvedEnvironment}. */
  env?: Record<string, string>;
  /** Wall-clock limit; when it passes, the whole process tree is killed. */
  timeoutMs: number;
  /** Cancels the run; the whole process tree is killed. */
  signal?: AbortSignal;
  /** Receives output as it arrives, decoded as UTF-8. */
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  /** Bytes kept per stream (half head, half tail). Default 64 KiB. */
  maxOutputBytes?: number;
  /** Text written to standard input; without it standard input is empty. */
  stdin?: string;
  /**
   * Output (both streams together) after which the process tree is killed: a command that
   * prints on and on costs the host reading it even though only head and tail are kept.
   * Default 64 MiB.
   */
  maxTotalOutputBytes?: number;
  /** Time between SIGTERM and SIGKILL when killing. Default 2000 ms. */
  killGraceMs?: number;
  /**
   * Runs `bash -c command` inside a sandbox: `executable` is started with `arguments` followed by
   * `/bin/bash -c command` (e.g. bubblewrap). Default: bash is started directly.
   */
  sandbox?: { executable: string; arguments: readonly string[] };
}

/** One captured output stream: its head and tail when it was longer than the cap. */
export interface CapturedOutput {
  /** The kept text; when truncated, head + a marker naming the omitted size + tail. */
  text: string;
  /** Bytes the stream produced in total. */
  totalBytes: number;
  /** Bytes left out of `text`. */
  omittedBytes: number;
  /** Whether bytes were left out. */
  truncated: boolean;
}

/** How a process ended. */
export interface ProcessOutcome {
  /** The exit code, or null when a signal ended it. */
  exitCode: number | null;
  /** The signal that ended it, if any. */
  signal: string | null;
  /** Whether the timeout killed it. */
  timedOut: boolean;
  /** Whether the abort signal killed it. */
  aborted: boolean;
  /** Whether it was killed for printing more than `maxTotalOutputBytes`. */
  outputLimited: boolean;
  /** Wall-clock duration. */
  durationMs: number;
  /** Captured standard output. */
  stdout: CapturedOutput;
  /** Captured standard error. */
  stderr: CapturedOutput;
}

const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
const DEFAULT_MAX_TOTAL_OUTPUT_BYTES = 64 * 1024 * 1024;
/** How long output may keep draining after bash has exited. */
const EXIT_DRAIN_MS = 500;
const DEFAULT_KILL_GRACE_MS = 2_000;

/** Environment variables always passed to a child (when set). */
const KEPT_VARIABLES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TZ',
  'TMPDIR',
  'PWD',
  'COLUMNS',
  'LINES',
  'NODE_ENV',
]);

const SECRET_WORD =
  /PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|CREDENTIAL|PRIVATE_?KEY|API_?KEY|ACCESS_?KEY|AUTHORIZATION/i;
const SECRET_NAME = /(?:^|_)(?:KEY|KEYS|PASS|AUTH|COOKIE|COOKIES|SESSION|DSN|SIGNATURE)(?:_|$)/i;
const SECRET_PREFIX =
  /^(?:AWS_|AZURE_|GCP_|GOOGLE_APPLICATION_|GH_|GITHUB_|GITLAB_|NPM_|DOCKER_|VAULT_|OPENAI_|ANTHROPIC_|npm_config__)/i;
const CREDENTIALS_IN_URL = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i;
const LC_VARIABLE = /^LC_[A-Z]+$/;

/**
 * Returns a copy of an environment without the secrets a deny-list recognises: names such as `*_TOKEN`, `*_SECRET`,
 * `*_KEY`, `*PASSWORD*`, `AWS_*`, `GITHUB_*`, `NPM_*`, and values shaped like a credential
 * (URLs with a password, Stripe/OpenAI/GitHub/Slack/SendGrid keys, webhooks, JWTs, `Password=`
 * connection strings …; see {@link containsSecretShape}), whatever the variable is called.
 * PATH, HOME, LANG, TERM, `LC_*` and the like are always kept. A secret under a neutral name
 * (`S3_SK`, `REDIS_PW`) passes: commands get {@link approvedEnvironment} (an allow-list) instead.
 */
export function scrubEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const scrubbed: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (KEPT_VARIABLES.has(name) || LC_VARIABLE.test(name)) {
      scrubbed[name] = value;
      continue;
    }
    if (
      SECRET_WORD.test(name) ||
      SECRET_NAME.test(name) ||
      SECRET_PREFIX.test(name) ||
      CREDENTIALS_IN_URL.test(value) ||
      containsSecretShape(value)
    ) {
      continue;
    }
    scrubbed[name] = value;
  }
  return scrubbed;
}

/** Keeps the first and last bytes of a stream within a cap. */
class OutputCapture {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  total = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const headLimit = Math.ceil(this.limit / 2);
    let rest = chunk;
    if (this.headBytes < headLimit) {
      const take = Math.min(headLimit - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    const tailLimit = Math.floor(this.limit / 2);
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tailBytes > tailLimit && this.tail.length > 0) {
      const first = this.tail[0] as Buffer;
      const excess = this.tailBytes - tailLimit;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
      }
    }
  }

  result(): CapturedOutput {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    const omitted = this.total - head.length - tail.length;
    if (omitted <= 0) {
      return {
        text: Buffer.concat([head, tail]).toString('utf8'),
        totalBytes: this.total,
        omittedBytes: 0,
        truncated: false,
      };
    }
    const text = `${head.toString('utf8')}\n… [${omitted} bytes omitted] …\n${tail.toString('utf8')}`;
    return { text, totalBytes: this.total, omittedBytes: omitted, truncated: true };
  }
}

/** Environment variable carrying a per-run mark, inherited by every descendant of the command. */
export const PROCESS_MARK_VARIABLE = 'TOOLSYS_PROCESS_MARK';

/**
 * Kills every process whose environment carries the run's mark: descendants that left the process
 * group (`setsid`, double fork) are found this way and ended with the call. Processes that cleared
 * their environment are out of reach here; inside the sandbox the PID namespace ends them instead.
 */
async function killMarked(mark: string): Promise<void> {
  await signalMarkedProcesses(PROCESS_MARK_VARIABLE, mark, 'SIGKILL');
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/**
 * Runs `bash -c command` in its own process group, capturing and streaming stdout and stderr.
 * The timeout or the abort signal kills the whole process tree (SIGTERM, then SIGKILL after a
 * grace period), including descendants that left the group (`setsid`, double fork), found by a
 * per-run mark in their environment; when bash exits, anything it left running in its group is
 * killed too, and so is a process outside the group that still holds the output. Rejects only when
 * bash (or the sandbox) cannot be started (a missing working directory, no bash).
 */
export async function runProcess(options: RunProcessOptions): Promise<ProcessOutcome> {
  const limit = Math.max(2, options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const started = Date.now();
  const stdout = new OutputCapture(limit);
  const stderr = new OutputCapture(limit);
  const mark = randomBytes(12).toString('hex');
  const env = withTaskMark({
    ...(options.env ?? approvedEnvironment(process.env)),
    [PROCESS_MARK_VARIABLE]: mark,
  });
  const sandbox = options.sandbox;
  const child = spawn(
    sandbox?.executable ?? 'bash',
    sandbox === undefined
      ? ['-c', options.command]
      : [...sandbox.arguments, '/bin/bash', '-c', options.command],
    {
      cwd: options.cwd,
      env,
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    },
  );
  // Inside the sandbox the PID namespace ends every process with the call; outside it, the
  // processes that left the group are found by their mark. Scanning /proc costs a read per
  // process, so it runs only at a timeout or cancel, or when output is still held after exit.
  const killOrphans = () => (sandbox === undefined ? killMarked(mark) : Promise.resolve());
  return new Promise<ProcessOutcome>((resolve, reject) => {
    let timedOut = false;
    let aborted = false;
    let outputLimited = false;
    const outputCap = options.maxTotalOutputBytes ?? DEFAULT_MAX_TOTAL_OUTPUT_BYTES;
    let settled = false;
    let exit: { code: number | null; signal: string | null } | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let closeTimer: NodeJS.Timeout | undefined;

    const terminate = () => {
      const pid = child.pid;
      if (pid === undefined) return;
      killGroup(pid, 'SIGTERM');
      void killOrphans();
      killTimer ??= setTimeout(() => {
        killGroup(pid, 'SIGKILL');
        void killOrphans();
      }, grace);
      killTimer.unref?.();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      terminate();
    };
    if (options.signal?.aborted === true) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    const cleanUp = () => {
      clearTimeout(timer);
      if (killTimer !== undefined) clearTimeout(killTimer);
      if (closeTimer !== undefined) clearTimeout(closeTimer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const finish = (code: number | null, signal: string | null) => {
      if (settled) return;
      settled = true;
      cleanUp();
      resolve({
        exitCode: exit?.code ?? code,
        signal: exit?.signal ?? signal,
        timedOut,
        aborted,
        outputLimited,
        durationMs: Date.now() - started,
        stdout: stdout.result(),
        stderr: stderr.result(),
      });
    };

    const attach = (
      stream: NodeJS.ReadableStream | null,
      name: 'stdout' | 'stderr',
      capture: OutputCapture,
    ) => {
      if (stream === null) return;
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => {
        capture.push(chunk);
        if (!outputLimited && stdout.total + stderr.total > outputCap) {
          outputLimited = true;
          terminate();
        }
        if (options.onOutput === undefined) return;
        const text = decoder.write(chunk);
        if (text !== '') options.onOutput(name, text);
      });
      stream.on('end', () => {
        const text = decoder.end();
        if (text !== '' && options.onOutput !== undefined) options.onOutput(name, text);
      });
    };
    attach(child.stdout, 'stdout', stdout);
    attach(child.stderr, 'stderr', stderr);

    if (child.stdin !== null) {
      child.stdin.on('error', () => {
        // The child closed its input early; what it did read is enough.
      });
      child.stdin.end(options.stdin ?? '');
    }

    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      cleanUp();
      reject(
        new Error(
          `cannot start ${sandbox === undefined ? 'bash' : 'the sandbox'}: ${error.message}`,
        ),
      );
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Background children of the command hold the pipes open: end them with bash.
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
      // A process that left the group (setsid, double fork) may keep the pipes open for ever:
      // once bash is gone, wait only briefly for the output to drain, then stop listening.
      closeTimer = setTimeout(() => {
        // Something outside the group still holds the output: end the processes that left it.
        void killOrphans();
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish(code, signal);
      }, EXIT_DRAIN_MS);
      closeTimer.unref?.();
    });
    child.on('close', (code, signal) => finish(code, signal));
  });
}
