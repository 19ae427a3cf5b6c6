import { containsSecretShape } from '@toolsys/core-tool-registry/text';
import { SANDBOX_ENVIRONMENT_NAMES } from './command-sandbox.js';

/**
 * Names of the host variables an approved command (a shell command or skill tool the user
 * allowed, a terminal session's input) receives, with `LC_*`: where programs are, who and where
 * the user is, locale, terminal and time zone. Nothing else of the server's environment passes
 * unless the deployment names it ({@link ApprovedEnvironmentOptions.pass}).
 */
export const APPROVED_ENVIRONMENT_NAMES: ReadonlySet<string> = new Set([
  // What a sandboxed command sees: locale, terminal, time zone, user name.
  ...SANDBOX_ENVIRONMENT_NAMES,
  'PATH',
  'HOME',
  'SHELL',
  'PWD',
  'TMPDIR',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'NODE_ENV',
]);

/** Options for {@link approvedEnvironment}. */
export interface ApprovedEnvironmentOptions {
  /**
   * More variable names the deployment passes on (`JAVA_HOME`, `GOPATH` …). A name that reads as
   * a credential ({@link isCredentialName}) or a value shaped like one is still withheld.
   */
  pass?: readonly string[];
}

const LC_VARIABLE = /^LC_[A-Z]+$/;

/*
 * A credential's name: password words and their short forms (`MYSQL_PWD`, `REDIS_PW`, `DB_PASS`),
 * keys, tokens, secrets, and every variable of the server itself (`TOOLSYS_*`, its bearer token).
 * `PWD` alone is the working directory.
 */
const CREDENTIAL_WORD =
  /PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|CREDENTIAL|PRIVATE_?KEY|API_?KEY|ACCESS_?KEY|AUTHORIZATION|CONNECTION_?STRING|WEBJOBSSTORAGE/i;
const CREDENTIAL_PART =
  /(?:^|_)(?:KEY|KEYS|SK|PASS|PW|PWD|AUTH|COOKIE|COOKIES|SESSION|DSN|SIGNATURE|BEARER|CERT)(?:_|$)/i;
const SERVER_VARIABLE = /^TOOLSYS_/i;

/** Whether a variable's name reads as a credential or is one of the server's own (`TOOLSYS_*`). */
export function isCredentialName(name: string): boolean {
  if (name === 'PWD') return false;
  return CREDENTIAL_WORD.test(name) || CREDENTIAL_PART.test(name) || SERVER_VARIABLE.test(name);
}

/**
 * The environment of an approved command, from the server's: only the allow-listed names
 * ({@link APPROVED_ENVIRONMENT_NAMES}, `LC_*`) and those the deployment passes, each only when
 * its value is not shaped like a credential ({@link containsSecretShape}); a passed name that
 * reads as a credential is withheld too. An approval covers the command, not the server's
 * tokens and passwords, whatever the variables holding them are called.
 */
export function approvedEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  options: ApprovedEnvironmentOptions = {},
): Record<string, string> {
  const passed = new Set(options.pass ?? []);
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const listed = APPROVED_ENVIRONMENT_NAMES.has(name) || LC_VARIABLE.test(name);
    if (!listed && !(passed.has(name) && !isCredentialName(name))) continue;
    if (containsSecretShape(value)) continue;
    kept[name] = value;
  }
  return kept;
}
