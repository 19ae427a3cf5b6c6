/**
 * The deny rules: commands that format disks, stop the machine, or delete, move or re-permission
 * the root, a home or a system directory, and writes to block devices and kernel triggers.
 */
import { posix } from 'node:path';
import { splitOperands } from './arguments.js';

/** Where the policy records what it found; the first reason of each kind wins. */
export interface PolicyFindings {
  /** Records that the command is refused without asking. */
  deny(reason: string): void;
  /** Records that the command needs a confirmation. */
  confirm(reason: string): void;
}

/** Analyses a command that another command runs (`find -exec …`) one level deeper. */
export type NestedAnalysis = (command: readonly (string | null)[]) => void;

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

/** Files whose writing crashes or restarts the machine. */
export const KERNEL_TRIGGERS = /^\/proc\/(?:sysrq-trigger|sys\/kernel\/(?:panic|sysrq))$/;

const FORMAT_COMMANDS =
  /^(?:mkfs(?:\..+)?|mke2fs|mkswap|mkdosfs|mkntfs|mkexfatfs|wipefs|blkdiscard)$/;

const POWER_COMMANDS = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);

/**
 * Records a deny (or, where the target is known only at run time, a confirm) for one simple command
 * that would destroy data or stop the machine; `analyseNested` checks a `find -exec` command.
 */
export function checkDestructive(
  name: string,
  args: readonly (string | null)[],
  findings: PolicyFindings,
  analyseNested: NestedAnalysis,
): void {
  if (FORMAT_COMMANDS.test(name)) {
    findings.deny(`"${name}" formats or wipes a disk or partition`);
    return;
  }
  if (POWER_COMMANDS.has(name)) {
    findings.deny(`"${name}" shuts down or restarts the machine`);
    return;
  }
  const { flags, operands } = splitOperands(args);
  switch (name) {
    case 'rm': {
      if (flags.some((flag) => flag === '--no-preserve-root')) {
        findings.deny('rm --no-preserve-root deletes the whole file system');
        return;
      }
      const recursive = flags.some(
        (flag) => /^-[a-zA-Z]*[rR]/.test(flag) || flag === '--recursive',
      );
      if (!recursive) return;
      for (const operand of operands) {
        if (operand === null) {
          findings.confirm('rm -r deletes a path only known at run time');
        } else if (isCriticalPath(operand)) {
          findings.deny(
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
          findings.deny(
            `${name} of "${operand}" would change the root, the home or a system directory`,
          );
        }
      }
      return;
    }
    case 'mv':
      for (const operand of operands.slice(0, -1)) {
        if (operand !== null && isCriticalPath(operand)) {
          findings.deny(`mv of "${operand}" would move the root, the home or a system directory`);
        }
      }
      return;
    case 'dd':
      for (const arg of args) {
        if (arg?.startsWith('of=') && isBlockDevice(arg.slice(3))) {
          findings.deny(`dd writes raw data to the block device ${arg.slice(3)}`);
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
          findings.deny(`${name} writes to the block device ${operand}`);
        }
      }
      return;
    case 'init':
    case 'telinit':
      if (operands.some((operand) => operand === '0' || operand === '6')) {
        findings.deny(`${name} ${operands.join(' ')} shuts down or restarts the machine`);
      }
      return;
    case 'systemctl':
      if (
        operands.some((operand) =>
          ['poweroff', 'reboot', 'halt', 'kexec', 'emergency', 'rescue'].includes(operand ?? ''),
        )
      ) {
        findings.deny('systemctl would shut down or restart the machine');
      }
      return;
    case 'kill':
    case 'pkill':
      // `kill -9 -1` signals every process the user may signal.
      if (args.slice(1).includes('-1') || operands.includes('-1')) {
        findings.deny(`${name} -1 signals every process on the machine`);
      }
      return;
    case 'find':
      checkFind(args, findings, analyseNested);
      return;
    default:
      return;
  }
}

function checkFind(
  args: readonly (string | null)[],
  findings: PolicyFindings,
  analyseNested: NestedAnalysis,
): void {
  const firstExpression = args.findIndex(
    (arg) => arg === null || arg.startsWith('-') || arg === '(' || arg === '!',
  );
  const paths = firstExpression < 0 ? args : args.slice(0, firstExpression);
  const deletes = args.includes('-delete');
  if (deletes && paths.some((path) => path !== null && isCriticalPath(path))) {
    findings.deny('find -delete would delete the root, the home or a system directory');
  }
  for (let index = 0; index < args.length; index += 1) {
    if (!/^-(?:exec|execdir|ok|okdir)$/.test(args[index] ?? '')) continue;
    const end = args.findIndex((arg, at) => at > index && (arg === ';' || arg === '+'));
    const command = args.slice(index + 1, end < 0 ? undefined : end);
    analyseNested(command);
    if (end < 0) break;
    index = end;
  }
}

const GLOB_ONLY = /^[*?.[\]!]+$/;
/** Whether a path segment holds a glob character. */
export const HAS_GLOB = /[*?[]/;

/** Whether a path is the root, a home directory, a top-level system directory, or a glob of one. */
export function isCriticalPath(raw: string): boolean {
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

/** Whether a path names a raw block device (or memory) whose writing destroys data. */
export function isBlockDevice(path: string): boolean {
  return BLOCK_DEVICE.test(posix.normalize(path));
}
