/// <reference path="./mvdan-sh.d.ts" />
/**
 * The shell command classifier: parses a command with mvdan/sh, walks every simple command in it
 * (through wrappers, nested shells and substitutions) and returns deny, allow or confirm.
 */
import { Buffer } from 'node:buffer';
import { posix } from 'node:path';
import { failureResult, ToolErrorCode, type ToolFailure } from '@toolsys/core-tool-registry';
import type { ShNode, ShSyntax } from 'mvdan-sh';
import { optionValue } from './arguments.js';
import {
  PURE_COMMANDS,
  READ_ONLY_COMMANDS,
  READ_ONLY_NODE_TYPES,
  SAFE_OUTPUT_TARGETS,
} from './command-tables.js';
import { checkDestructive, isBlockDevice, KERNEL_TRIGGERS } from './destructive-commands.js';
import { findLinkOutside } from './link-check.js';
import { WordReader } from './words.js';
import { type ScriptAnalysis, unwrapCommand } from './wrappers.js';

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

/** mvdan/sh binary command operators: `|` and `|&`. */
const PIPE = 12;
const PIPE_ALL = 13;

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

/** One classification: walks the parsed command and records the first deny and confirm. */
class CommandAnalysis implements ScriptAnalysis {
  readonly findings: Findings = {};
  private readonly allowed: Set<string>;
  private readonly denied: Set<string>;
  private readonly useAllowList: boolean;
  private readonly workspaceRoot: string | undefined;
  private readonly cwd: string | undefined;
  /** Relative paths read by allow-listed commands, checked for links out after parsing. */
  private readonly pathsToCheck = new Set<string>();
  private readonly words: WordReader;

  constructor(
    private readonly syntax: ShSyntax,
    options: ShellPolicyOptions,
  ) {
    this.words = new WordReader(syntax);
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

  /** Records a confirmation when a relative path read leads out of the workspace through a link. */
  async checkLinks(): Promise<void> {
    const root = this.workspaceRoot;
    const cwd = this.cwd;
    if (root === undefined || cwd === undefined) return;
    const reason = await findLinkOutside({
      root,
      cwd,
      paths: this.pathsToCheck,
      globbed: this.words.globbed,
    });
    if (reason !== undefined) this.confirm(reason);
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
    if (this.words.globbed.has(arg)) this.words.globbed.add(value);
    this.pathsToCheck.add(value);
  }

  deny(reason: string): void {
    this.findings.deny ??= reason;
  }

  confirm(reason: string): void {
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
    const args = words.flatMap((word) => this.words.values(word));
    this.analyseArguments(args, depth);
  }

  /** Checks one simple command given as its argument vector (`null` = known only at run time). */
  private analyseArguments(initial: readonly (string | null)[], depth: number): void {
    let args = [...initial];
    for (let guard = 0; guard < 16; guard += 1) {
      const unwrapped = unwrapCommand(args, depth, this);
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
    checkDestructive(name, rest, this, (command) => this.analyseArguments(command, depth + 1));
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

  /** Analyses arguments that are shell code themselves (`eval`, `bash -c`, `watch`). */
  analyseScript(parts: readonly (string | null)[], depth: number): void {
    if (parts.length === 0) return;
    if (parts.some((part) => part === null)) {
      this.confirm('the command runs shell code that is only known at run time');
      return;
    }
    this.analyseSource(parts.join(' '), depth + 1);
  }

  private analyseRedirect(node: ShNode, bytes: Buffer): void {
    const opStart = (node.OpPos as { Offset(): number }).Offset();
    const word = node.Word as ShNode | null;
    const opEnd = word === null ? opStart + 2 : word.Pos().Offset();
    const operator = bytes.subarray(opStart, opEnd).toString('utf8').trim();
    if (word === null || operator.startsWith('<<')) return;
    const targets = this.words.values(word);
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
        if (first !== undefined && this.words.value(first) === name) callsItself = true;
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
}

/**
 * The result a shell tool returns for a command its policy denies: PERMISSION_DENIED on the field
 * `command`, naming the reason, with a hint not to retry it or a variant; `details` carry
 * `permission: 'deny'` and the reason.
 */
export function commandDeniedFailure(reason: string): ToolFailure {
  return failureResult(ToolErrorCode.PERMISSION_DENIED, `command refused: ${reason}`, {
    field: 'command',
    hint: 'This command is never run here. Change approach; do not retry it or a variant of it.',
    details: { permission: 'deny', reason },
  });
}
