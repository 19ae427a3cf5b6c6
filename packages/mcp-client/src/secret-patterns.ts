import { containsSecretShape } from '@toolsys/core-tool-registry/text';

/** Names of env vars, headers and flags that usually hold a secret. */
export const SECRET_NAME =
  /(token|secret|password|passwd|api[-_]?key|apikey|auth|credential|private[-_]?key)/i;

/** A command-line flag naming a secret, optionally with `=value` (group 3). */
export const SECRET_FLAG = /^--?[\w-]*(token|secret|password|api[-_]?key|apikey)[\w-]*(=(.+))?$/i;

/** Whether `args[index]` carries a secret: a credential-shaped value, `--token=x`, or `--token x`. */
export function isSecretArgument(args: readonly unknown[], index: number): boolean {
  const arg = args[index];
  if (typeof arg !== 'string' || arg.includes('${')) return false;
  // Values are recognised by the one scrubber's shapes (core-tool-registry), names here.
  if (containsSecretShape(arg)) return true;
  const flag = SECRET_FLAG.exec(arg);
  if (flag?.[3]) return true;
  const previous = index > 0 ? args[index - 1] : undefined;
  return (
    typeof previous === 'string' &&
    SECRET_FLAG.test(previous) &&
    !previous.includes('=') &&
    !arg.startsWith('-')
  );
}

/** The arguments with secret values replaced by `***` (for listings and prompts). */
export function redactArguments(args: readonly string[]): string[] {
  return args.map((arg, index) => {
    if (!isSecretArgument(args, index)) return arg;
    const flag = SECRET_FLAG.exec(arg);
    return flag?.[3] ? `${arg.slice(0, arg.indexOf('=') + 1)}***` : '***';
  });
}
