/**
 * How the policy reads a command's argument vector: the operands apart from the flags, what
 * follows a wrapper's own options, and the path an option names.
 */

/** The path an argument names: the value of `--opt=value`, the text attached to `-fvalue`. */
export function optionValue(arg: string): string {
  if (!arg.startsWith('-')) return arg;
  if (arg.includes('=')) return arg.slice(arg.indexOf('=') + 1);
  const attached = /[/~]|\.\./.exec(arg);
  return attached === null ? arg : arg.slice(attached.index);
}

/**
 * The arguments after leading options (and, with `skipAssignments`, `NAME=value` words): what a
 * wrapper such as sudo or nice runs. `withValue` lists the options that take the next argument.
 */
export function skipOptions(
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

/** Splits arguments into flags and operands; everything after `--` is an operand. */
export function splitOperands(args: readonly (string | null)[]): {
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
