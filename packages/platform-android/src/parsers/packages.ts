/** One line of `pm list packages [-f]`. */
export interface ListedPackage {
  readonly packageName: string;
  /** The APK path, with `-f`. */
  readonly apkPath?: string;
}

/** Parses `pm list packages` output (`package:NAME` or `package:PATH=NAME` with `-f`). */
export function parsePackageList(output: string): ListedPackage[] {
  const packages: ListedPackage[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('package:')) continue;
    const body = line.slice('package:'.length).replace(/ versionCode:\d{1,20}$/, '');
    const equals = body.lastIndexOf('=');
    const listed =
      equals > 0 && body.startsWith('/')
        ? { packageName: body.slice(equals + 1), apkPath: body.slice(0, equals) }
        : { packageName: body };
    // Android accepts only these characters in a package name; anything else is not one.
    if (PACKAGE_NAME.test(listed.packageName)) packages.push(listed);
  }
  return packages;
}

/** What Android accepts as a package name (PackageParser: letters, digits, `_`, dot-separated). */
const PACKAGE_NAME = /^[A-Za-z][A-Za-z0-9_]{0,200}(?:\.[A-Za-z0-9_]{1,200}){0,50}$/;

/** What `dumpsys package NAME` says about an installed package. */
export interface PackageDetails {
  readonly packageName: string;
  readonly versionName?: string;
  readonly versionCode?: number;
  readonly minSdk?: number;
  readonly targetSdk?: number;
  readonly firstInstallTime?: string;
  readonly lastUpdateTime?: string;
  readonly installer?: string;
  readonly system: boolean;
  /** Every requested permission. */
  readonly requestedPermissions: string[];
  /** Permissions granted now (install-time and runtime). */
  readonly grantedPermissions: string[];
  /** Runtime permissions requested but not granted. */
  readonly deniedPermissions: string[];
}

/** The lines indented under the header line at `start`, up to the next line at its indent or less. */
function indentedBlock(lines: readonly string[], start: number): string[] {
  const block: string[] = [];
  const baseIndent = (lines[start] as string).search(/\S/);
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.trim() !== '' && line.search(/\S/) <= baseIndent) break;
    block.push(line);
  }
  return block;
}

/**
 * Collects the `requested permissions:`, `install permissions:` and per-user `runtime
 * permissions:` lists of one package or shared-user block (`NAME: granted=true|false, flags=[…]`).
 */
function collectPermissions(
  block: readonly string[],
  into: { requested: string[]; granted: Set<string>; denied: Set<string> },
): void {
  let list: 'requested' | 'install' | 'runtime' | undefined;
  for (const line of block) {
    const trimmed = line.trim();
    if (trimmed === 'requested permissions:') list = 'requested';
    else if (trimmed === 'install permissions:') list = 'install';
    else if (trimmed === 'runtime permissions:') list = 'runtime';
    else if (/^[a-zA-Z][\w.]*\.[\w.]+(?::|$)/.test(trimmed) && list !== undefined) {
      const match = /^([\w.]+)(?::\s*granted=(true|false))?/.exec(trimmed);
      if (!match) continue;
      const name = match[1] as string;
      if (list === 'requested') into.requested.push(name);
      else if (match[2] === 'true') into.granted.add(name);
      else if (match[2] === 'false') into.denied.add(name);
    } else if (trimmed.endsWith(':') || /^\w+=/.test(trimmed) || trimmed.startsWith('User ')) {
      list = undefined;
    }
  }
}

/**
 * The block of the shared user a package belongs to. The package names it with
 * `sharedUser=SharedUser{HASH NAME/UID}` (`SharedUserSetting.toString`); the `Shared users:` section
 * (`Settings.dumpSharedUsersLPr`) prints `SharedUser [NAME] (HASH):` with `userId=UID`. Matched by
 * name, else by user id.
 */
function sharedUserBlock(lines: readonly string[], packageSection: readonly string[]) {
  const declared = packageSection
    .map((line) => /^\s*sharedUser=SharedUser\{\S+ ([^/}\s]+)\/(\d+)\}/.exec(line))
    .find((match) => match !== null);
  if (!declared) return undefined;
  const [, name, userId] = declared;
  const sectionStart = lines.indexOf('Shared users:');
  if (sectionStart < 0) return undefined;
  const candidates: { name: string; block: string[] }[] = [];
  for (let index = sectionStart + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (/^\S/.test(line)) break;
    const header = /^\s+SharedUser \[([^\]]+)\]/.exec(line);
    if (header) candidates.push({ name: header[1] as string, block: indentedBlock(lines, index) });
  }
  const hasUserId = (block: readonly string[]) =>
    block.some((line) => line.trim() === `userId=${userId}`);
  return (
    candidates.find((candidate) => candidate.name === name && hasUserId(candidate.block)) ??
    candidates.find((candidate) => candidate.name === name) ??
    candidates.find((candidate) => hasUserId(candidate.block))
  )?.block;
}

/**
 * Parses `dumpsys package NAME`. Returns undefined when the package is not installed (the output
 * has no `Package [NAME]` section; Android prints "Unable to find package" or nothing). For a
 * package with a `sharedUserId`, Android 9 to 11 print its runtime permission grants only under
 * the shared user (`Shared users:` section); those are read too.
 */
export function parsePackageDetails(
  output: string,
  packageName: string,
): PackageDetails | undefined {
  const lines = output.split('\n').map((line) => line.replace(/\r$/, ''));
  const start = lines.findIndex((line) => line.trim().startsWith(`Package [${packageName}]`));
  if (start < 0) return undefined;
  const section = indentedBlock(lines, start);
  const field = (name: string): string | undefined => {
    for (const line of section) {
      const match = new RegExp(`(?:^|\\s)${name}=(\\S+(?: \\d\\d:\\d\\d:\\d\\d)?)`).exec(line);
      if (match) return match[1];
    }
    return undefined;
  };
  const permissions = {
    requested: [] as string[],
    granted: new Set<string>(),
    denied: new Set<string>(),
  };
  collectPermissions(section, permissions);
  const sharedUser = sharedUserBlock(lines, section);
  if (sharedUser) collectPermissions(sharedUser, { ...permissions, requested: [] });
  const { requested, granted, denied } = permissions;
  const flags = section.find((line) => line.trim().startsWith('flags=[')) ?? '';
  const versionCode = field('versionCode');
  const minSdk = field('minSdk');
  const targetSdk = field('targetSdk');
  const details: { -readonly [K in keyof PackageDetails]: PackageDetails[K] } = {
    packageName,
    system: /\bSYSTEM\b/.test(flags),
    requestedPermissions: requested,
    grantedPermissions: [...granted],
    deniedPermissions: [...denied].filter((name) => !granted.has(name)),
  };
  const versionName = field('versionName');
  if (versionName !== undefined) details.versionName = versionName;
  if (versionCode !== undefined) details.versionCode = Number(versionCode);
  if (minSdk !== undefined) details.minSdk = Number(minSdk);
  if (targetSdk !== undefined) details.targetSdk = Number(targetSdk);
  const first = field('firstInstallTime');
  if (first !== undefined) details.firstInstallTime = first;
  const last = field('lastUpdateTime');
  if (last !== undefined) details.lastUpdateTime = last;
  const installer = field('installerPackageName');
  if (installer !== undefined && installer !== 'null') details.installer = installer;
  return details;
}
