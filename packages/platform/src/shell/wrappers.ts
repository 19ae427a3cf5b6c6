/**
 * Wrappers: the commands that run another command (sudo, env, xargs, nice, timeout, nohup …) or
 * shell code (`eval`, `bash -c`, `su -c`, `watch`), and what each one runs.
 */
import { posix } from 'node:path';
import { skipOptions } from './arguments.js';
import { SHELLS } from './command-tables.js';
import type { PolicyFindings } from './destructive-commands.js';

/** What a wrapper reports to: the findings, and the analysis of shell code it runs. */
export interface ScriptAnalysis extends PolicyFindings {
  /** Analyses arguments that are shell code themselves, one nesting level below `depth`. */
  analyseScript(parts: readonly (string | null)[], depth: number): void;
}

/**
 * Strips a wrapper (sudo, env, xargs, nice, timeout …) and returns the command it runs, or
 * undefined when there is none. Shell code a wrapper runs (`eval`, `bash -c`, `env -S`, `su -c`,
 * `watch`) goes to `analysis.analyseScript`; the wrapper itself is recorded as a confirmation.
 */
export function unwrapCommand(
  args: (string | null)[],
  depth: number,
  analysis: ScriptAnalysis,
): (string | null)[] | undefined {
  const head = args[0];
  if (head === null || head === undefined) return undefined;
  const name = posix.basename(head);
  const rest = args.slice(1);
  switch (name) {
    case 'sudo':
    case 'doas':
      analysis.confirm(`the command runs through ${name}`);
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
          analysis.analyseScript([script], depth);
          return [];
        }
        if (arg.startsWith('-S')) {
          analysis.analyseScript([arg.slice(2)], depth);
          return [];
        }
        if (arg === '-u' || arg === '-C' || arg === '--unset' || arg === '--chdir') {
          index += 2;
          continue;
        }
        if (arg.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
          if (arg.includes('=') && !arg.startsWith('-')) {
            analysis.confirm('the command sets environment variables');
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
      analysis.confirm('the command runs through xargs');
      // xargs appends arguments read from standard input: unknown until run time.
      return command.length === 0 ? ['echo'] : [...command, null];
    }
    case 'nice':
    case 'ionice':
    case 'stdbuf':
    case 'chrt':
    case 'taskset':
      analysis.confirm(`the command runs through ${name}`);
      return skipOptions(rest, new Set(['-n', '-c', '-p', '-i', '-o', '-e', '--adjustment']));
    case 'timeout': {
      const command = skipOptions(rest, new Set(['-k', '-s', '--kill-after', '--signal']));
      analysis.confirm('the command runs through timeout');
      return command.slice(1);
    }
    case 'nohup':
    case 'time':
    case 'builtin':
    case 'exec':
    case 'busybox':
    case 'setsid':
    case 'unbuffer':
      analysis.confirm(`the command runs through ${name}`);
      return skipOptions(rest, new Set(['-a', '-f', '-o']));
    case 'command': {
      if (rest.some((arg) => arg === '-v' || arg === '-V')) return ['type'];
      analysis.confirm('the command runs through command');
      return skipOptions(rest, new Set());
    }
    case 'watch': {
      const command = skipOptions(rest, new Set(['-n', '-d', '--interval']));
      analysis.analyseScript(command, depth);
      return [];
    }
    case 'eval':
      analysis.analyseScript(rest, depth);
      return [];
    case 'su': {
      const index = rest.findIndex((arg) => arg === '-c' || arg === '--command');
      analysis.confirm('the command runs through su');
      if (index >= 0) analysis.analyseScript([rest[index + 1] ?? null], depth);
      return [];
    }
    default:
      if (SHELLS.has(name)) {
        const index = rest.findIndex((arg) => arg === null || /^-[a-z]*c[a-z]*$/.test(arg));
        if (index >= 0) {
          analysis.confirm(`the command starts another shell (${name})`);
          analysis.analyseScript([rest[index + 1] ?? null], depth);
          return [];
        }
      }
      return undefined;
  }
}
