/**
 * The tables the classifier reads: the read-only commands that run without asking (with the
 * argument rules that keep each call read-only), the commands that read no files, the shells, the
 * syntax a read-only command line may use and the output targets that write nothing.
 */

/** Output targets a redirection may write to without asking. */
export const SAFE_OUTPUT_TARGETS = /^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+)$/;

/** Shells whose `-c` argument is analysed as shell code. */
export const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'busybox-sh']);

/**
 * Read-only commands that run without asking. A predicate, when present, must accept the
 * arguments (all of them known before run time) for the call to stay read-only.
 */
export const READ_ONLY_COMMANDS: ReadonlyMap<
  string,
  ((args: readonly string[]) => boolean) | null
> = new Map<string, ((args: readonly string[]) => boolean) | null>([
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
export const PURE_COMMANDS = new Set([
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
export const READ_ONLY_NODE_TYPES = new Set([
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
