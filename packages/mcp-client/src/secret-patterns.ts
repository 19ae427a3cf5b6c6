/** Names of env vars, headers and flags that usually hold a secret. */
export const SECRET_NAME =
  /(token|secret|password|passwd|api[-_]?key|apikey|auth|credential|private[-_]?key)/i;

/** Values shaped like well-known credentials (GitHub, OpenAI-style, Slack, AWS, GitLab, bearer). */
export const SECRET_VALUE =
  /^(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{16,}|Bearer\s+\S{8,})$/;

/** A command-line flag naming a secret, optionally with `=value` (group 3). */
export const SECRET_FLAG = /^--?[\w-]*(token|secret|password|api[-_]?key|apikey)[\w-]*(=(.+))?$/i;

/** Whether `args[index]` carries a secret: a credential-shaped value, `--token=x`, or `--token x`. */
export function isSecretArgument(args: readonly unknown[], index: number): boolean {
  const arg = args[index];
  if (typeof arg !== 'string' || arg.includes('${')) return false;
  if (SECRET_VALUE.test(arg)) return true;
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
