import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { access, lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readRootfsFile } from './rootfs-paths.js';
import { findProgram } from './shells.js';

/** Which rootfs: the Debian one (`linux_*` tools) or the Ubuntu one (`ubuntu*` tools). */
export type RootfsFlavor = 'debian' | 'ubuntu';

/** Where a flavor's packages come from. */
export interface RootfsSource {
  /** Release codename passed to debootstrap (`bookworm`, `jammy`). */
  readonly suite: string;
  /** Archive URL; undefined means "not configured" (refused with a reason). */
  readonly mirror?: string;
}

/** Options for {@link RootfsManager}. */
export interface RootfsManagerOptions {
  /** Directory the rootfs folders and logs live in (absolute). */
  readonly baseDir: string;
  /** Debian source. Default bookworm from `http://deb.debian.org/debian`. */
  readonly debian?: RootfsSource;
  /** Ubuntu source. Default suite jammy with no mirror (nothing to fetch from until configured). */
  readonly ubuntu?: RootfsSource;
  /** Environment used to find proot and debootstrap. Default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

/** The state of one rootfs and of its bootstrap job. */
export interface RootfsStatus {
  readonly flavor: RootfsFlavor;
  readonly state: 'absent' | 'bootstrapping' | 'ready' | 'failed';
  readonly suite: string;
  readonly mirror: string | null;
  /** The last progress line of debootstrap (`I: Retrieving …`). */
  readonly phase: string | null;
  readonly startedAt: number | null;
  readonly finishedAt: number | null;
  /** debootstrap's exit code once it ended. */
  readonly exitCode: number | null;
  /** Last lines of the bootstrap log. */
  readonly logTail: string[];
  /** `PRETTY_NAME` from the rootfs's os-release once ready. */
  readonly osName: string | null;
}

/** Why a bootstrap cannot start (a clear reason and what to configure). */
export class RootfsUnavailableError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'RootfsUnavailableError';
  }
}

/** The outcome of a command run inside a rootfs. */
export interface RootfsCommandResult {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

interface Job {
  readonly child: ChildProcess;
  readonly startedAt: number;
  finishedAt: number | null;
  exitCode: number | null;
  done: Promise<void>;
}

const READY_FILE = '.toolsys-rootfs-ready';
const DEFAULT_DEBIAN: RootfsSource = { suite: 'bookworm', mirror: 'http://deb.debian.org/debian' };
const DEFAULT_UBUNTU: RootfsSource = { suite: 'jammy' };
const UBUNTU_KEYRING = '/usr/share/keyrings/ubuntu-archive-keyring.gpg';
const PROOT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Builds and runs Linux root filesystems with debootstrap and proot, without root privileges on
 * the host. A bootstrap is a background job polled with {@link status}; a finished rootfs is
 * cached in `baseDir` and reused.
 */
export class RootfsManager {
  readonly baseDir: string;
  private readonly sources: Record<RootfsFlavor, RootfsSource>;
  private readonly environment: Readonly<Record<string, string | undefined>>;
  private readonly jobs = new Map<RootfsFlavor, Job>();

  constructor(options: RootfsManagerOptions) {
    this.baseDir = options.baseDir;
    this.sources = {
      debian: options.debian ?? DEFAULT_DEBIAN,
      ubuntu: options.ubuntu ?? DEFAULT_UBUNTU,
    };
    this.environment = options.environment ?? process.env;
  }

  /** The folder of a flavor's rootfs. */
  directory(flavor: RootfsFlavor = 'debian'): string {
    return join(this.baseDir, `${flavor}-${this.sources[flavor].suite}`);
  }

  /** The configured source of a flavor. */
  source(flavor: RootfsFlavor): RootfsSource {
    return this.sources[flavor];
  }

  /** Whether a flavor's rootfs has finished bootstrapping. */
  async isReady(flavor: RootfsFlavor = 'debian'): Promise<boolean> {
    // The mark itself, never what a link of that name made inside the rootfs points to.
    const stat = await lstat(join(this.directory(flavor), READY_FILE)).catch(() => undefined);
    return stat?.isFile() === true;
  }

  /** Marks a rootfs built by other means (a copied tree) as ready. */
  async markReady(flavor: RootfsFlavor = 'debian'): Promise<void> {
    await writeFile(join(this.directory(flavor), READY_FILE), `${new Date().toISOString()}\n`);
  }

  /** The state of a flavor's rootfs and its bootstrap job. */
  async status(flavor: RootfsFlavor = 'debian'): Promise<RootfsStatus> {
    const job = this.jobs.get(flavor);
    const ready = await this.isReady(flavor);
    const log = await readFile(this.logPath(flavor), 'utf8').catch(() => '');
    const lines = log.split('\n').filter((line) => line.trim() !== '');
    const phase = [...lines].reverse().find((line) => /^[IWE]: /.test(line)) ?? null;
    const hasTree = await exists(this.directory(flavor));
    const state: RootfsStatus['state'] = ready
      ? 'ready'
      : job !== undefined && job.finishedAt === null
        ? 'bootstrapping'
        : job !== undefined || (hasTree && lines.length > 0)
          ? 'failed'
          : 'absent';
    return {
      flavor,
      state,
      suite: this.sources[flavor].suite,
      mirror: this.sources[flavor].mirror ?? null,
      phase,
      startedAt: job?.startedAt ?? null,
      finishedAt: job?.finishedAt ?? null,
      exitCode: job?.exitCode ?? null,
      logTail: lines.slice(-8),
      osName: ready ? await this.osName(flavor) : null,
    };
  }

  /**
   * Starts debootstrap in the background unless the rootfs is ready or a job runs. A failed or
   * interrupted build resumes in the same folder (downloaded packages are reused). Throws
   * {@link RootfsUnavailableError} when it cannot start here.
   */
  async bootstrap(flavor: RootfsFlavor = 'debian'): Promise<'started' | 'running' | 'ready'> {
    if (await this.isReady(flavor)) return 'ready';
    const running = this.jobs.get(flavor);
    if (running !== undefined && running.finishedAt === null) return 'running';
    const source = this.sources[flavor];
    if (source.mirror === undefined) {
      throw new RootfsUnavailableError(
        `no ${flavor === 'ubuntu' ? 'Ubuntu' : 'Debian'} mirror is configured, so there is nowhere to download ${source.suite} from`,
        `Set packages.platform-terminal.${flavor}Mirror in toolsys.config.json to an archive this machine can reach (for Ubuntu, e.g. http://archive.ubuntu.com/ubuntu or a local mirror), then call again.`,
      );
    }
    const debootstrap =
      (await findProgram('debootstrap', this.environment)) ??
      (await findProgram('/usr/sbin/debootstrap', this.environment));
    if (debootstrap === undefined) {
      throw new RootfsUnavailableError(
        'debootstrap is not installed',
        'Ask the operator to install the debootstrap and proot packages (apt-get install debootstrap proot).',
      );
    }
    if (!(await exists(`/usr/share/debootstrap/scripts/${source.suite}`))) {
      throw new RootfsUnavailableError(
        `this debootstrap does not know the suite "${source.suite}"`,
        `Configure a suite listed in /usr/share/debootstrap/scripts (packages.platform-terminal.${flavor}Suite), or upgrade debootstrap.`,
      );
    }
    const args = ['--variant=minbase'];
    if (flavor === 'ubuntu') {
      if (!(await exists(UBUNTU_KEYRING))) {
        throw new RootfsUnavailableError(
          'the Ubuntu archive keyring is not installed, so Ubuntu packages cannot be verified',
          'Ask the operator to install the ubuntu-keyring package (or place ubuntu-archive-keyring.gpg in /usr/share/keyrings), then call again.',
        );
      }
      args.push(`--keyring=${UBUNTU_KEYRING}`);
    }
    const directory = this.directory(flavor);
    await mkdir(directory, { recursive: true });
    args.push(source.suite, directory, source.mirror);
    const log = createWriteStream(this.logPath(flavor), { flags: 'a' });
    log.write(`--- ${new Date().toISOString()} debootstrap ${args.join(' ')}\n`);
    // fakeroot-less debootstrap needs root; its own process group lets dispose end it whole.
    const child = spawn(debootstrap, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    const job: Job = {
      child,
      startedAt: Date.now(),
      finishedAt: null,
      exitCode: null,
      done: Promise.resolve(),
    };
    job.done = new Promise((resolve) => {
      const finish = (code: number | null): void => {
        if (job.finishedAt !== null) return;
        job.finishedAt = Date.now();
        job.exitCode = code;
        const marked =
          code === 0 ? this.markReady(flavor).catch(() => undefined) : Promise.resolve();
        void marked.then(() => {
          log.end(`--- exit ${code}\n`);
          resolve();
        });
      };
      child.on('error', (error) => {
        log.write(`E: ${error.message}\n`);
        finish(null);
      });
      child.on('close', (code) => finish(code));
    });
    this.jobs.set(flavor, job);
    return 'started';
  }

  /** Resolves when the flavor's running bootstrap (if any) ends. */
  async waitForBootstrap(flavor: RootfsFlavor = 'debian'): Promise<void> {
    await this.jobs.get(flavor)?.done;
  }

  /**
   * Runs a program inside a ready rootfs with proot (`-0`: appears as root, so apt works), the
   * workspace not bound, nothing of the host bound but /dev, /proc and /sys (see
   * {@link prootRootArguments}). Output is capped; the process group is killed at the time limit.
   */
  async run(
    flavor: RootfsFlavor,
    argv: readonly string[],
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<RootfsCommandResult> {
    const proot = await findProgram('proot', this.environment);
    if (proot === undefined) {
      throw new RootfsUnavailableError(
        'proot is not installed',
        'Ask the operator to install proot.',
      );
    }
    return new Promise((resolve) => {
      const child = execFile(
        proot,
        ['-0', ...prootRootArguments(this.directory(flavor)), '-w', '/root', ...argv],
        {
          timeout: options.timeoutMs,
          killSignal: 'SIGKILL',
          maxBuffer: 4 * 1024 * 1024,
          env: {
            PATH: PROOT_PATH,
            HOME: '/root',
            LANG: 'C.UTF-8',
            DEBIAN_FRONTEND: 'noninteractive',
          },
          ...(options.signal ? { signal: options.signal } : {}),
        },
        (error, stdout, stderr) => {
          const failure = error as
            | (NodeJS.ErrnoException & { killed?: boolean; code?: unknown })
            | null;
          resolve({
            exitCode: failure === null ? 0 : typeof failure.code === 'number' ? failure.code : null,
            stdout: String(stdout),
            stderr: String(stderr),
            timedOut: failure?.killed === true,
          });
        },
      );
      child.stdin?.end();
    });
  }

  /** Stops running bootstrap jobs (their whole process groups). */
  async dispose(): Promise<void> {
    for (const job of this.jobs.values()) {
      if (job.finishedAt !== null || job.child.pid === undefined) continue;
      try {
        process.kill(-job.child.pid, 'SIGKILL');
      } catch {
        // Already ended.
      }
    }
    await Promise.all([...this.jobs.values()].map((job) => job.done));
  }

  private logPath(flavor: RootfsFlavor): string {
    return `${this.directory(flavor)}.log`;
  }

  private async osName(flavor: RootfsFlavor): Promise<string | null> {
    for (const path of ['etc/os-release', 'usr/lib/os-release']) {
      // Links resolve inside the rootfs, as in a chroot: `etc/os-release` -> `/x` is the rootfs's /x.
      const text = await readRootfsFile(this.directory(flavor), path);
      const match = text === undefined ? null : /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text);
      if (match?.[1] !== undefined) return match[1];
    }
    return null;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The proot arguments that enter a rootfs: `-r <rootfs>` with only `/dev`, `/proc` and `/sys`
 * of the host bound. Not `-R`, which also binds the host's `/tmp`, `/run`, `$HOME` and files of
 * `/etc` (passwd, group, resolv.conf, hosts …) writable into the rootfs: there `/tmp` is the
 * rootfs's own folder, `/etc` its own files (debootstrap copies the resolver configuration), and
 * a program inside (an apt-get run as fake root) cannot write to the host through them.
 */
export function prootRootArguments(rootfs: string): string[] {
  return ['-r', rootfs, '-b', '/dev', '-b', '/proc', '-b', '/sys'];
}
