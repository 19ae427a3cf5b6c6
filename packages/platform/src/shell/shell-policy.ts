/// <reference path="./mvdan-sh.d.ts" />
import { Buffer } from 'node:buffer';
import { lstat, readdir } from 'node:fs/promises';
import { posix } from 'node:path';
import type { ShNode, ShSyntax } from 'mvdan-sh';
import { resolveWorkspacePath } from '../workspace-paths.js';

/** How a shell command is treated before it runs. */
export interface CommandVerdict {
  /** `deny`: refused without asking; `allow`: read-only, runs without asking; `confirm`: ask. */
  kind: 'deny' | 'allow' | 'confirm';
  /** Why, in one sentence the model and the user can read. */
  reason: string;
}

/** Options for {@link classifyCommand}. */
export interface ShellPolicyOptions {
  /** Extra command names (basenames) that run without asking. Default: none. */
  allowCommands?: readonly string[];
  /** Extra command names (basenames) that are always refused. Default: none. */
  denyCommands?: readonly string[];
  /** When false, nothing runs without asking (the deny-list still applies). Default: true. */
  useAllowList?: boolean;
  /**
   * The workspace root. Read-only commands run without asking only when every path they name
   * stays inside it (absolute paths inside it are fine); without it, any absolute path, `~` or `..`
   * needs a confirmation.
   */
  workspaceRoot?: string;
  /**
   * The folder the command runs in (inside the workspace root). Relative paths are taken from it
   * when checking where symbolic links lead. Default: the workspace root.
   */
  cwd?: string;
}

/** Longest command the parser is given; longer commands are never allowed without asking. */
const MAX_PARSED_LENGTH = 100_000;
/** How deep `bash -c '…'`, `eval …` and `find -exec` nest before the policy stops looking. */
const MAX_NESTING = 4;
/** Most words one brace expansion may produce before the word counts as unknown. */
const MAX_BRACE_WORDS = 4_096;
/** Most paths whose symbolic links are checked; past it the command asks. */
const MAX_LINK_CHECKS = 256;

const SYSTEM_DIRECTORIES = new Set([
  'bin',
  'boot',
  'dev',
  'etc',
  'home',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'media',
  'mnt',
  'opt',
  'proc',
  'root',
  'run',
  'sbin',
  'snap',
  'srv',
  'sys',
  'usr',
  'var',
]);

const BLOCK_DEVICE =
  /^\/dev\/(?:(?:sd|hd|vd|xvd)[a-z]|nvme\d|mmcblk\d|md\d|dm-\d|loop\d|sr\d|fd\d|disk\/|mapper\/|mem$|kmem$|port$|root$)/;

const KERNEL_TRIGGERS = /^\/proc\/(?:sysrq-trigger|sys\/kernel\/(?:panic|sysrq))$/;

const SAFE_OUTPUT_TARGETS = /^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+)$/;

const FORMAT_COMMANDS =
  /^(?:mkfs(?:\..+)?|mke2fs|mkswap|mkdosfs|mkntfs|mkexfatfs|wipefs|blkdiscard)$/;

const POWER_COMMANDS = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'busybox-sh']);

/**
 * Read-only commands that run without asking. A predicate, when present, must accept the
 * arguments (all of them known before run time) for the call to stay read-only.
 */
const READ_ONLY_COMMANDS: ReadonlyMap<string, ((args: readonly string[]) => boolean) | null> =
  new Map<string, ((args: readonly string[]) => boolean) | null>([
    ['ls', null],
    ['cat', null],
    ['head', null],
    ['tail', null],
    ['wc', null],
    ['pwd', null],
    ['echo', null],
    ['printf', null],
    ['grep', null],
    ['egrep', null],
    ['fgrep', null],
    ['stat', null],
    // `file -C` compiles a magic file and writes it beside the source.
    ['file', (args) => !hasShortOption(args, 'C') && !hasLongOption(args, ['compile'])],
    ['du', null],
    ['df', null],
    ['which', null],
    ['whoami', null],
    ['id', null],
    ['uname', null],
    ['basename', null],
    ['dirname', null],
    ['realpath', null],
    ['readlink', null],
    ['cut', null],
    ['tr', null],
    ['diff', null],
    ['cmp', null],
    ['comm', null],
    ['nl', null],
    ['tac', null],
    ['rev', null],
    ['fold', null],
    ['paste', null],
    ['column', null],
    ['seq', null],
    ['nproc', null],
    ['true', null],
    ['false', null],
    ['test', null],
    ['[', null],
    ['expr', null],
    ['md5sum', null],
    ['sha1sum', null],
    ['sha256sum', null],
    ['sha512sum', null],
    ['od', null],
    ['hexdump', null],
    ['strings', null],
    ['jq', null],
    ['printenv', null],
    ['type', null],
    ['date', (args) => !hasShortOption(args, 's') && !hasLongOption(args, ['set'])],
    ['hostname', (args) => args.every((arg) => HOSTNAME_QUERY_OPTIONS.has(arg))],
    [
      'sort',
      (args) =>
        !hasShortOption(args, 'oT') &&
        !hasLongOption(args, ['output', 'compress-program', 'temporary-directory']),
    ],
    ['uniq', (args) => args.filter((arg) => !arg.startsWith('-')).length <= 1],
    ['tree', (args) => !args.some((arg) => arg.startsWith('-o') || arg === '-R')],
    [
      'rg',
      (args) =>
        !hasShortOption(args, 'z') &&
        !hasLongOption(args, ['pre', 'pre-glob', 'search-zip', 'hostname-bin']),
    ],
    [
      'find',
      (args) =>
        !args.some((arg) =>
          /^-(?:delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/.test(arg),
        ),
    ],
    [
      'git',
      (args) =>
        ['status', 'log', 'diff', 'show', 'ls-files', 'rev-parse', 'blame', 'describe'].includes(
          args[0] ?? '',
        ) &&
        !hasLongOption(args.slice(1), [
          'output',
          'ext-diff',
          'exec',
          'textconv',
          'show-signature',
          'open-files-in-pager',
          'upload-pack',
          'exec-path',
        ]),
    ],
  ]);

/*
 * Audit of the allow-list for options that run programs or write files (both make a command
 * ask): sort --compress-program/-o/--output/-T; find -exec/-execdir/-ok/-okdir/-delete/-fprint/-fprint0/-fprintf/-fls;
 * rg --pre/--pre-glob/-z/--search-zip/--hostname-bin; git --output/--ext-diff/--textconv/
 * --show-signature/-O (open-files-in-pager) and every subcommand but the eight read-only ones
 * (repository-configured programs are disabled by the sandbox's git wrapper as well); date -s/--set;
 * hostname anything but the query options (--file/-F and a name set the host name); tree -o/-R;
 * uniq with an output operand; file -C/--compile (writes a compiled magic file). GNU long options may be abbreviated (`--compress-prog`), so every
 * prefix of a dangerous long option counts. cat, head, tail, wc, grep, ls, stat, du, df, cut,
 * tr, diff, cmp, comm, nl, tac, rev, fold, paste, column, od, hexdump, strings, jq, md5sum … have
 * no option that runs a program or writes a file; options naming files they read (--files0-from,
 * -f, --rawfile …) are checked as paths like any other argument.
 */

/** hostname options that only print; anything else may set the host name. */
const HOSTNAME_QUERY_OPTIONS = new Set([
  '-s',
  '--short',
  '-f',
  '--fqdn',
  '--long',
  '-d',
  '--domain',
  '-i',
  '--ip-address',
  '-I',
  '--all-ip-addresses',
  '-A',
  '--all-fqdns',
  '-a',
  '--alias',
  '-V',
  '--version',
  '-h',
  '--help',
]);

/** Whether an argument is a (possibly abbreviated) GNU long option among `names`. */
function hasLongOption(args: readonly string[], names: readonly string[]): boolean {
  return args.some((arg) => {
    if (!arg.startsWith('--') || arg === '--') return false;
    const key = arg.slice(2).split('=')[0] ?? '';
    return key !== '' && names.some((name) => name.startsWith(key));
  });
}

/** Whether a cluster of short options (`-xo`) holds one of `letters`, conservatively. */
function hasShortOption(args: readonly string[], letters: string): boolean {
  return args.some(
    (arg) =>
      arg.startsWith('-') &&
      !arg.startsWith('--') &&
      [...arg.slice(1)].some((char) => letters.includes(char)),
  );
}

/** Read-only commands that do not read files: their arguments are not checked as paths. */
const PURE_COMMANDS = new Set([
  'echo',
  'printf',
  'pwd',
  'true',
  'false',
  'test',
  '[',
  'expr',
  'seq',
  'nproc',
  'whoami',
  'id',
  'uname',
  'hostname',
  'date',
  'printenv',
  'type',
  'which',
  'basename',
  'dirname',
]);

/** Node types a read-only command line may contain; anything else needs a confirmation. */
const READ_ONLY_NODE_TYPES = new Set([
  'File',
  'Stmt',
  'CallExpr',
  'Word',
  'Lit',
  'SglQuoted',
  'DblQuoted',
  'ParamExp',
  'CmdSubst',
  'ProcSubst',
  'BinaryCmd',
  'Subshell',
  'Block',
  'Redirect',
  'Comment',
  'ArithmExp',
  'BinaryArithm',
  'UnaryArithm',
  'ParenArithm',
]);

interface Findings {
  deny?: string;
  confirm?: string;
}

let syntaxPromise: Promise<ShSyntax> | undefined;

/** Loads the parser on first use so that creating tools stays cheap. */
function loadSyntax(): Promise<ShSyntax> {
  syntaxPromise ??= import('mvdan-sh').then((module) => module.default.syntax);
  return syntaxPromise;
}

/**
 * Classifies a shell command with a real shell parser (mvdan/sh): `deny` for destructive patterns
 * (recursive delete of / or the home, fork bombs, mkfs, raw writes to block devices, recursive
 * chmod/chown of /, power off …) found anywhere in the parsed command — pipelines, lists,
 * subshells, substitutions, wrappers such as sudo/env/xargs, `bash -c` strings and quoting tricks;
 * `allow` when every command is on the read-only list and nothing is written; `confirm` otherwise.
 * A command that cannot be parsed is `confirm`, never `allow`.
 */
export async function classifyCommand(
  command: string,
  options: ShellPolicyOptions = {},
): Promise<CommandVerdict> {
  if (command.trim() === '') return { kind: 'confirm', reason: 'the command is empty' };
  if (command.length > MAX_PARSED_LENGTH) {
    return { kind: 'confirm', reason: 'the command is too long to analyse' };
  }
  const syntax = await loadSyntax();
  const analysis = new CommandAnalysis(syntax, options);
  analysis.analyseSource(command, 0);
  if (analysis.findings.deny === undefined && analysis.findings.confirm === undefined) {
    await analysis.checkLinks();
  }
  const { deny, confirm } = analysis.findings;
  if (deny !== undefined) return { kind: 'deny', reason: deny };
  if (confirm !== undefined) return { kind: 'confirm', reason: confirm };
  return { kind: 'allow', reason: 'every command in it is read-only' };
}

class CommandAnalysis {
  readonly findings: Findings = {};
  private readonly allowed: Set<string>;
  private readonly denied: Set<string>;
  private readonly useAllowList: boolean;
  private readonly workspaceRoot: string | undefined;
  private readonly cwd: string | undefined;
  /** Relative paths read by allow-listed commands, checked for links out after parsing. */
  readonly pathsToCheck = new Set<string>();
  /** Values that hold an unquoted glob character. */
  private readonly globbed = new Set<string>();

  constructor(
    private readonly syntax: ShSyntax,
    options: ShellPolicyOptions,
  ) {
    this.allowed = new Set(options.allowCommands ?? []);
    this.denied = new Set(options.denyCommands ?? []);
    this.useAllowList = options.useAllowList ?? true;
    this.workspaceRoot =
      options.workspaceRoot === undefined ? undefined : posix.resolve(options.workspaceRoot);
    this.cwd =
      this.workspaceRoot === undefined
        ? undefined
        : posix.resolve(this.workspaceRoot, options.cwd ?? '.');
  }

  /**
   * Checks, on disk, that the relative paths read by allow-listed commands do not lead out of the
   * workspace through a symbolic link (existing or dangling, at any depth). For a glob, the folder
   * it lists is checked, and so is every entry of that folder that is a link.
   */
  async checkLinks(): Promise<void> {
    const root = this.workspaceRoot;
    const cwd = this.cwd;
    if (root === undefined || cwd === undefined || this.pathsToCheck.size === 0) return;
    // A root that does not exist holds no links.
    if ((await lstat(root).catch(() => undefined)) === undefined) return;
    if (this.pathsToCheck.size > MAX_LINK_CHECKS) {
      this.confirm('the command names too many paths to check');
      return;
    }
    for (const path of this.pathsToCheck) {
      const absolute = posix.resolve(cwd, path);
      const parts = posix.relative(root, absolute).split('/');
      const globAt = this.globbed.has(path) ? parts.findIndex((part) => HAS_GLOB.test(part)) : -1;
      const fixed = globAt < 0 ? parts : parts.slice(0, globAt);
      const base = posix.join(root, ...fixed);
      if (!(await this.staysInside(base))) {
        this.confirm(`the command reads ${path}, which leads outside the workspace through a link`);
        return;
      }
      if (globAt < 0) continue;
      const entries = await readdir(base).catch(() => [] as string[]);
      for (const entry of entries) {
        const candidate = posix.join(base, entry);
        const stats = await lstat(candidate).catch(() => undefined);
        if (stats?.isSymbolicLink() === true && !(await this.staysInside(candidate))) {
          this.confirm(
            `the glob ${path} may match a link that leads outside the workspace (${entry})`,
          );
          return;
        }
      }
    }
  }

  private async staysInside(absolute: string): Promise<boolean> {
    const root = this.workspaceRoot;
    if (root === undefined) return false;
    try {
      await resolveWorkspacePath(root, absolute);
      return true;
    } catch {
      return false;
    }
  }

  /** Whether a path argument may reach outside the workspace (conservative: `..` counts). */
  private reachesOutside(path: string): boolean {
    if (path.startsWith('~')) return true;
    if (path.startsWith('/')) {
      const root = this.workspaceRoot;
      const normal = posix.normalize(path);
      return root === undefined || !(normal === root || normal.startsWith(`${root}/`));
    }
    return path.split('/').includes('..');
  }

  /** Asks for confirmation when a read-only command names a path outside the workspace. */
  private checkReadScope(name: string, args: readonly (string | null)[]): void {
    if (PURE_COMMANDS.has(name)) return;
    for (const arg of args) {
      if (arg === null) {
        this.confirm(`"${name}" reads a path known only at run time`);
        return;
      }
      const value = optionValue(arg);
      if (this.reachesOutside(value)) {
        this.confirm(`"${name}" reads ${value}, outside the workspace`);
        return;
      }
      if (value !== '' && !value.startsWith('-')) this.notePath(value, arg);
    }
  }

  private notePath(value: string, arg: string): void {
    if (this.globbed.has(arg)) this.globbed.add(value);
    this.pathsToCheck.add(value);
  }

  private deny(reason: string): void {
    this.findings.deny ??= reason;
  }

  private confirm(reason: string): void {
    this.findings.confirm ??= reason;
  }

  analyseSource(source: string, depth: number): void {
    if (depth > MAX_NESTING) {
      this.confirm('the command nests shell code too deeply to analyse');
      return;
    }
    let file: ShNode;
    try {
      file = this.syntax.NewParser(this.syntax.Variant(this.syntax.LangBash)).Parse(source, '');
    } catch {
      this.confirm('the command could not be parsed as shell');
      return;
    }
    const bytes = Buffer.from(source, 'utf8');
    this.syntax.Walk(file, (node) => {
      if (node === null) return true;
      const type = this.syntax.NodeType(node);
      if (!READ_ONLY_NODE_TYPES.has(type)) this.confirm(`the command uses shell syntax (${type})`);
      switch (type) {
        case 'Stmt':
          if (node.Background === true) this.confirm('the command starts a background job');
          break;
        case 'CallExpr':
          this.analyseCallExpression(node, depth);
          break;
        case 'Redirect':
          this.analyseRedirect(node, bytes);
          break;
        case 'FuncDecl':
          this.analyseFunction(node);
          break;
        default:
          break;
      }
      return true;
    });
  }

  private analyseCallExpression(node: ShNode, depth: number): void {
    const assigns = (node.Assigns as ShNode[] | undefined) ?? [];
    const words = (node.Args as ShNode[] | undefined) ?? [];
    if (assigns.length > 0) this.confirm('the command sets environment variables');
    if (words.length === 0) return;
    const args = words.flatMap((word) => this.wordValues(word));
    this.analyseArguments(args, depth);
  }

  /** Checks one simple command given as its argument vector (`null` = known only at run time). */
  private analyseArguments(initial: readonly (string | null)[], depth: number): void {
    let args = [...initial];
    for (let guard = 0; guard < 16; guard += 1) {
      const unwrapped = this.unwrap(args, depth);
      if (unwrapped === undefined) break;
      args = unwrapped;
    }
    const head = args[0];
    if (head === undefined) return;
    if (head === null) {
      this.confirm('the command name is only known at run time');
      return;
    }
    const name = posix.basename(head);
    const rest = args.slice(1);
    if (this.denied.has(name)) {
      this.deny(`"${name}" is on this deployment's deny-list`);
      return;
    }
    this.checkDestructive(name, rest, depth);
    const known = rest.every((arg): arg is string => arg !== null);
    const predicate = READ_ONLY_COMMANDS.get(name);
    const isReadOnly =
      this.allowed.has(name) ||
      (predicate === null && READ_ONLY_COMMANDS.has(name)) ||
      (predicate !== undefined && predicate !== null && known && predicate(rest as string[]));
    if (!this.useAllowList || !isReadOnly) {
      this.confirm(`"${name}" is not a read-only command`);
    } else if (head.includes('/')) {
      // `./cat` or `sub/ls` would run a program from the workspace, not the system's.
      this.confirm(`"${head}" names a program by path, not a system command`);
    } else if (!this.allowed.has(name)) {
      this.checkReadScope(name, rest);
    }
  }

  /** Strips a wrapper (sudo, env, xargs, nice, timeout …); returns undefined when there is none. */
  private unwrap(args: (string | null)[], depth: number): (string | null)[] | undefined {
    const head = args[0];
    if (head === null || head === undefined) return undefined;
    const name = posix.basename(head);
    const rest = args.slice(1);
    switch (name) {
      case 'sudo':
      case 'doas':
        this.confirm(`the command runs through ${name}`);
        return skipOptions(
          rest,
          new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-T', '-U']),
          {
            skipAssignments: true,
          },
        );
      case 'env': {
        const remaining: (string | null)[] = [];
        let index = 0;
        while (index < rest.length) {
          const arg = rest[index];
          if (arg === null || arg === undefined) return [null];
          if (arg === '-S' || arg === '--split-string') {
            const script = rest[index + 1];
            if (script === null || script === undefined) return [null];
            this.analyseSource(script, depth + 1);
            return [];
          }
          if (arg.startsWith('-S')) {
            this.analyseSource(arg.slice(2), depth + 1);
            return [];
          }
          if (arg === '-u' || arg === '-C' || arg === '--unset' || arg === '--chdir') {
            index += 2;
            continue;
          }
          if (arg.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
            if (arg.includes('=') && !arg.startsWith('-')) {
              this.confirm('the command sets environment variables');
            }
            index += 1;
            continue;
          }
          remaining.push(...rest.slice(index));
          break;
        }
        if (remaining.length === 0) return ['printenv'];
        return remaining;
      }
      case 'xargs': {
        const command = skipOptions(
          rest,
          new Set(['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter']),
        );
        this.confirm('the command runs through xargs');
        // xargs appends arguments read from standard input: unknown until run time.
        return command.length === 0 ? ['echo'] : [...command, null];
      }
      case 'nice':
      case 'ionice':
      case 'stdbuf':
      case 'chrt':
      case 'taskset':
        this.confirm(`the command runs through ${name}`);
        return skipOptions(rest, new Set(['-n', '-c', '-p', '-i', '-o', '-e', '--adjustment']));
      case 'timeout': {
        const command = skipOptions(rest, new Set(['-k', '-s', '--kill-after', '--signal']));
        this.confirm('the command runs through timeout');
        return command.slice(1);
      }
      case 'nohup':
      case 'time':
      case 'builtin':
      case 'exec':
      case 'busybox':
      case 'setsid':
      case 'unbuffer':
        this.confirm(`the command runs through ${name}`);
        return skipOptions(rest, new Set(['-a', '-f', '-o']));
      case 'command': {
        if (rest.some((arg) => arg === '-v' || arg === '-V')) return ['type'];
        this.confirm('the command runs through command');
        return skipOptions(rest, new Set());
      }
      case 'watch': {
        const command = skipOptions(rest, new Set(['-n', '-d', '--interval']));
        this.analyseScript(command, depth);
        return [];
      }
      case 'eval':
        this.analyseScript(rest, depth);
        return [];
      case 'su': {
        const index = rest.findIndex((arg) => arg === '-c' || arg === '--command');
        this.confirm('the command runs through su');
        if (index >= 0) this.analyseScript([rest[index + 1] ?? null], depth);
        return [];
      }
      default:
        if (SHELLS.has(name)) {
          const index = rest.findIndex((arg) => arg === null || /^-[a-z]*c[a-z]*$/.test(arg));
          if (index >= 0) {
            this.confirm(`the command starts another shell (${name})`);
            this.analyseScript([rest[index + 1] ?? null], depth);
            return [];
          }
        }
        return undefined;
    }
  }

  /** Analyses arguments that are shell code themselves (`eval`, `bash -c`, `watch`). */
  private analyseScript(parts: readonly (string | null)[], depth: number): void {
    if (parts.length === 0) return;
    if (parts.some((part) => part === null)) {
      this.confirm('the command runs shell code that is only known at run time');
      return;
    }
    this.analyseSource(parts.join(' '), depth + 1);
  }

  private checkDestructive(name: string, args: readonly (string | null)[], depth: number): void {
    if (FORMAT_COMMANDS.test(name)) {
      this.deny(`"${name}" formats or wipes a disk or partition`);
      return;
    }
    if (POWER_COMMANDS.has(name)) {
      this.deny(`"${name}" shuts down or restarts the machine`);
      return;
    }
    const { flags, operands } = splitOperands(args);
    switch (name) {
      case 'rm': {
        if (flags.some((flag) => flag === '--no-preserve-root')) {
          this.deny('rm --no-preserve-root deletes the whole file system');
          return;
        }
        const recursive = flags.some(
          (flag) => /^-[a-zA-Z]*[rR]/.test(flag) || flag === '--recursive',
        );
        if (!recursive) return;
        for (const operand of operands) {
          if (operand === null) {
            this.confirm('rm -r deletes a path only known at run time');
          } else if (isCriticalPath(operand)) {
            this.deny(
              `rm -r of "${operand}" would delete the root, the home or a system directory`,
            );
          }
        }
        return;
      }
      case 'chmod':
      case 'chown':
      case 'chgrp':
      case 'chattr':
      case 'setfacl': {
        const recursive = flags.some((flag) => /^-[a-zA-Z]*R/.test(flag) || flag === '--recursive');
        for (const operand of operands) {
          if (operand === null) continue;
          if (
            posix.normalize(operand).replace(/\/+$/, '') === '' ||
            (recursive && isCriticalPath(operand))
          ) {
            this.deny(
              `${name} of "${operand}" would change the root, the home or a system directory`,
            );
          }
        }
        return;
      }
      case 'mv':
        for (const operand of operands.slice(0, -1)) {
          if (operand !== null && isCriticalPath(operand)) {
            this.deny(`mv of "${operand}" would move the root, the home or a system directory`);
          }
        }
        return;
      case 'dd':
        for (const arg of args) {
          if (arg?.startsWith('of=') && isBlockDevice(arg.slice(3))) {
            this.deny(`dd writes raw data to the block device ${arg.slice(3)}`);
          }
        }
        return;
      case 'shred':
      case 'tee':
      case 'cp':
      case 'install':
      case 'truncate':
      case 'badblocks':
        for (const operand of operands) {
          if (operand !== null && isBlockDevice(operand)) {
            this.deny(`${name} writes to the block device ${operand}`);
          }
        }
        return;
      case 'init':
      case 'telinit':
        if (operands.some((operand) => operand === '0' || operand === '6')) {
          this.deny(`${name} ${operands.join(' ')} shuts down or restarts the machine`);
        }
        return;
      case 'systemctl':
        if (
          operands.some((operand) =>
            ['poweroff', 'reboot', 'halt', 'kexec', 'emergency', 'rescue'].includes(operand ?? ''),
          )
        ) {
          this.deny('systemctl would shut down or restart the machine');
        }
        return;
      case 'kill':
      case 'pkill':
        // `kill -9 -1` signals every process the user may signal.
        if (args.slice(1).includes('-1') || operands.includes('-1')) {
          this.deny(`${name} -1 signals every process on the machine`);
        }
        return;
      case 'find':
        this.checkFind(args, depth);
        return;
      default:
        return;
    }
  }

  private checkFind(args: readonly (string | null)[], depth: number): void {
    const firstExpression = args.findIndex(
      (arg) => arg === null || arg.startsWith('-') || arg === '(' || arg === '!',
    );
    const paths = firstExpression < 0 ? args : args.slice(0, firstExpression);
    const deletes = args.includes('-delete');
    if (deletes && paths.some((path) => path !== null && isCriticalPath(path))) {
      this.deny('find -delete would delete the root, the home or a system directory');
    }
    for (let index = 0; index < args.length; index += 1) {
      if (!/^-(?:exec|execdir|ok|okdir)$/.test(args[index] ?? '')) continue;
      const end = args.findIndex((arg, at) => at > index && (arg === ';' || arg === '+'));
      const command = args.slice(index + 1, end < 0 ? undefined : end);
      this.analyseArguments(command, depth + 1);
      if (end < 0) break;
      index = end;
    }
  }

  private analyseRedirect(node: ShNode, bytes: Buffer): void {
    const opStart = (node.OpPos as { Offset(): number }).Offset();
    const word = node.Word as ShNode | null;
    const opEnd = word === null ? opStart + 2 : word.Pos().Offset();
    const operator = bytes.subarray(opStart, opEnd).toString('utf8').trim();
    if (word === null || operator.startsWith('<<')) return;
    const targets = this.wordValues(word);
    const target = targets.length === 1 ? (targets[0] ?? null) : null;
    if (!operator.includes('>')) {
      if (operator.endsWith('<&')) return;
      if (target === null) this.confirm('the command reads a file named only at run time');
      else if (this.reachesOutside(target))
        this.confirm(`the command reads ${target}, outside the workspace`);
      else this.notePath(target, target);
      return;
    }
    if (operator.endsWith('>&') && target !== null && /^(?:\d+|-)$/.test(target)) return;
    if (target === null) {
      this.confirm('the command writes to a file named only at run time');
    } else if (isBlockDevice(target)) {
      this.deny(`the command writes raw data to the block device ${target}`);
    } else if (KERNEL_TRIGGERS.test(posix.normalize(target))) {
      this.deny(`writing to ${target} can crash or restart the machine`);
    } else if (!SAFE_OUTPUT_TARGETS.test(posix.normalize(target))) {
      this.confirm(`the command writes to ${target}`);
    }
  }

  /** A function that calls itself through a pipe or in the background is a fork bomb. */
  private analyseFunction(node: ShNode): void {
    const name = (node.Name as { Value?: string } | null)?.Value;
    const body = node.Body as ShNode | null;
    this.confirm('the command defines a shell function');
    if (name === undefined || body === null) return;
    let callsItself = false;
    let spawns = false;
    this.syntax.Walk(body, (inner) => {
      if (inner === null) return true;
      const type = this.syntax.NodeType(inner);
      if (type === 'CallExpr') {
        const first = (inner.Args as ShNode[] | undefined)?.[0];
        if (first !== undefined && this.wordValue(first) === name) callsItself = true;
      } else if (type === 'Stmt' && inner.Background === true) {
        spawns = true;
      } else if (type === 'BinaryCmd' && (inner.Op === PIPE || inner.Op === PIPE_ALL)) {
        spawns = true;
      }
      return true;
    });
    if (callsItself && spawns) {
      this.deny(`the function "${name}" calls itself in parallel: a fork bomb`);
    }
  }

  /** The literal value of a word after quote removal, or null when it depends on run time. */
  private wordValue(word: ShNode): string | null {
    const values = this.wordValues(word);
    return values.length === 1 ? (values[0] ?? null) : null;
  }

  /**
   * The words one shell word becomes after brace expansion (anywhere in the word, as bash does:
   * `{/etc/passw,}d`, `a{1..3}b`) and quote removal; `[null]` when it depends on run time or
   * expands to too many words.
   */
  private wordValues(word: ShNode): (string | null)[] {
    let pattern = '';
    for (const part of (word.Parts as ShNode[] | undefined) ?? []) {
      const piece = this.partValue(part, false);
      if (piece === null) return [null];
      pattern += piece;
    }
    const expanded = expandBraces(pattern);
    if (expanded === null) return [null];
    return expanded.map((value) => {
      const plain = removeEscapes(value);
      if (hasUnescapedGlob(value)) this.globbed.add(plain);
      return plain;
    });
  }

  /**
   * One part of a word as a pattern: unquoted text keeps its backslash escapes; quoted text has
   * every special character escaped, so that brace expansion and globbing leave it alone.
   */
  private partValue(part: ShNode, quoted: boolean): string | null {
    switch (this.syntax.NodeType(part)) {
      case 'Lit': {
        const text = String(part.Value ?? '');
        return quoted
          ? escapePattern(
              text.replace(/\\([$`"\\\n])/g, (_match, char: string) => (char === '\n' ? '' : char)),
            )
          : text;
      }
      case 'SglQuoted': {
        const text = String(part.Value ?? '');
        return escapePattern(part.Dollar === true ? decodeAnsiC(text) : text);
      }
      case 'DblQuoted': {
        let value = '';
        for (const inner of (part.Parts as ShNode[] | undefined) ?? []) {
          const piece = this.partValue(inner, true);
          if (piece === null) return null;
          value += piece;
        }
        return value;
      }
      case 'ParamExp': {
        const parameter = (part.Param as { Value?: string } | null)?.Value;
        const plain =
          part.Exp == null &&
          part.Repl == null &&
          part.Slice == null &&
          part.Index == null &&
          part.Excl !== true &&
          part.Length !== true;
        // `$HOME` is resolved to `~` so that `rm -rf "$HOME"` is recognised as the home.
        return plain && parameter === 'HOME' ? (quoted ? '\\~' : '~') : null;
      }
      default:
        return null;
    }
  }
}

/** mvdan/sh binary command operators: `|` and `|&`. */
const PIPE = 12;
const PIPE_ALL = 13;

/** Escapes the characters brace expansion and globbing act on, for quoted text. */
function escapePattern(text: string): string {
  return text.replace(/[\\{},*?[\]~]/g, '\\$&');
}

/** Quote removal of a pattern: `\x` becomes `x`, an escaped newline disappears. */
function removeEscapes(pattern: string): string {
  return pattern.replace(/\\(.|\n)/g, (_match, char: string) => (char === '\n' ? '' : char));
}

function hasUnescapedGlob(pattern: string): boolean {
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index];
    if (char === '\\') index += 1;
    else if (char === '*' || char === '?' || char === '[') return true;
  }
  return false;
}

/** The index of the `}` closing the `{` at `open`, or -1; fills `commas` with top-level commas. */
function findBraceClose(pattern: string, open: number, commas: number[]): number {
  let depth = 0;
  for (let index = open; index < pattern.length; index += 1) {
    const char = pattern[index];
    if (char === '\\') {
      index += 1;
    } else if (char === '{') {
      depth += 1;
    } else if (char === '}') {
      depth -= 1;
      if (depth === 0) return index;
    } else if (char === ',' && depth === 1) {
      commas.push(index);
    }
  }
  return -1;
}

const SEQUENCE = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])(?:\.\.(-?\d+))?$/;

/** The words of a sequence expression (`1..5`, `a..e`, `0..10..2`), or undefined if it is not one. */
function expandSequence(body: string): string[] | null | undefined {
  const match = SEQUENCE.exec(body);
  if (match === null) return undefined;
  const [, from = '', to = '', stepText] = match;
  const numeric = /^-?\d+$/.test(from) && /^-?\d+$/.test(to);
  if (!numeric && (from.length !== 1 || to.length !== 1 || /\d/.test(from + to))) return undefined;
  const start = numeric ? Number(from) : from.charCodeAt(0);
  const end = numeric ? Number(to) : to.charCodeAt(0);
  const step = Math.abs(Number(stepText ?? 1)) || 1;
  const count = Math.floor(Math.abs(end - start) / step) + 1;
  if (count > MAX_BRACE_WORDS) return null;
  const direction = end >= start ? 1 : -1;
  const words: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const value = start + direction * index * step;
    words.push(numeric ? String(value) : escapePattern(String.fromCharCode(value)));
  }
  return words;
}

/**
 * Bash brace expansion of one word pattern (escaped characters are literal): every `{a,b}` and
 * `{x..y}` anywhere in the word, nested or not. Null when the result would pass
 * {@link MAX_BRACE_WORDS} words (the word then counts as unknown).
 */
function expandBraces(pattern: string): string[] | null {
  for (let open = 0; open < pattern.length; open += 1) {
    const char = pattern[open];
    if (char === '\\') {
      open += 1;
      continue;
    }
    if (char !== '{') continue;
    const commas: number[] = [];
    const close = findBraceClose(pattern, open, commas);
    if (close < 0) return [pattern];
    const body = pattern.slice(open + 1, close);
    let alternatives: string[] | null | undefined;
    if (commas.length > 0) {
      const cuts = [open, ...commas, close];
      alternatives = cuts.slice(1).map((cut, index) => pattern.slice((cuts[index] ?? 0) + 1, cut));
    } else {
      alternatives = expandSequence(body);
    }
    if (alternatives === null) return null;
    if (alternatives === undefined) continue;
    const prefix = pattern.slice(0, open);
    const suffixes = expandBraces(pattern.slice(close + 1));
    if (suffixes === null) return null;
    const words: string[] = [];
    for (const alternative of alternatives) {
      const inner = expandBraces(alternative);
      if (inner === null) return null;
      for (const middle of inner) {
        for (const suffix of suffixes) {
          words.push(prefix + middle + suffix);
          if (words.length > MAX_BRACE_WORDS) return null;
        }
      }
    }
    return words;
  }
  return [pattern];
}

/** The path an argument names: the value of `--opt=value`, the text attached to `-fvalue`. */
function optionValue(arg: string): string {
  if (!arg.startsWith('-')) return arg;
  if (arg.includes('=')) return arg.slice(arg.indexOf('=') + 1);
  const attached = /[/~]|\.\./.exec(arg);
  return attached === null ? arg : arg.slice(attached.index);
}

function skipOptions(
  args: readonly (string | null)[],
  withValue: ReadonlySet<string>,
  options: { skipAssignments?: boolean } = {},
): (string | null)[] {
  let index = 0;
  while (index < args.length) {
    const arg = args[index];
    if (arg === null || arg === undefined) break;
    if (arg === '--') {
      index += 1;
      break;
    }
    if (withValue.has(arg)) {
      index += 2;
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      index += 1;
      continue;
    }
    if (options.skipAssignments === true && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
      index += 1;
      continue;
    }
    break;
  }
  return args.slice(index);
}

function splitOperands(args: readonly (string | null)[]): {
  flags: string[];
  operands: (string | null)[];
} {
  const flags: string[] = [];
  const operands: (string | null)[] = [];
  let afterDoubleDash = false;
  for (const arg of args) {
    if (!afterDoubleDash && arg === '--') {
      afterDoubleDash = true;
    } else if (!afterDoubleDash && arg !== null && arg.startsWith('-') && arg.length > 1) {
      flags.push(arg);
    } else {
      operands.push(arg);
    }
  }
  return { flags, operands };
}

const GLOB_ONLY = /^[*?.[\]!]+$/;
const HAS_GLOB = /[*?[]/;

/** Whether a path is the root, a home directory, a top-level system directory, or a glob of one. */
function isCriticalPath(raw: string): boolean {
  if (raw === '') return false;
  if (raw.startsWith('~')) {
    const rest = posix.normalize(raw.slice(1) || '/');
    const tail = rest.replace(/^\/+/, '').replace(/\/+$/, '');
    if (!raw.slice(1).startsWith('/') && !tail.includes('/')) return true;
    return tail === '' || GLOB_ONLY.test(tail);
  }
  if (!raw.startsWith('/')) return false;
  const normal = posix.normalize(raw).replace(/\/+$/, '');
  if (normal === '' || normal === '/') return true;
  const segments = normal.split('/').filter(Boolean);
  const [first = '', second = '', third] = segments;
  if (segments.length === 1) return SYSTEM_DIRECTORIES.has(first) || HAS_GLOB.test(first);
  if (first === 'home' || first === 'Users') {
    if (segments.length === 2) return true;
    return segments.length === 3 && third !== undefined && GLOB_ONLY.test(third);
  }
  if (segments.length === 2 && SYSTEM_DIRECTORIES.has(first) && GLOB_ONLY.test(second)) {
    return true;
  }
  return false;
}

function isBlockDevice(path: string): boolean {
  return BLOCK_DEVICE.test(posix.normalize(path));
}

/** Decodes the escapes of bash's `$'…'` quoting. */
function decodeAnsiC(text: string): string {
  return text.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/g,
    (_match, sequence: string) => {
      const kind = sequence[0];
      if (kind === 'x' || kind === 'u' || kind === 'U') {
        const code = Number.parseInt(sequence.slice(1), 16);
        return code <= 0x10ffff ? String.fromCodePoint(code) : '';
      }
      if (/^[0-7]/.test(sequence)) return String.fromCharCode(Number.parseInt(sequence, 8) & 0xff);
      if (kind === 'c') return String.fromCharCode(sequence.charCodeAt(1) & 0x1f);
      const simple: Record<string, string> = {
        n: '\n',
        t: '\t',
        r: '\r',
        a: '\x07',
        b: '\b',
        e: '\x1b',
        E: '\x1b',
        f: '\f',
        v: '\v',
      };
      return simple[sequence] ?? sequence;
    },
  );
}
