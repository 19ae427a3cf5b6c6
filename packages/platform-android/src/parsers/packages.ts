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
    const body = line.slice('package:'.length).replace(/ versionCode:\d+$/, '');
    const equals = body.lastIndexOf('=');
    if (equals > 0 && body.startsWith('/')) {
      packages.push({ packageName: body.slice(equals + 1), apkPath: body.slice(0, equals) });
    } else {
      packages.push({ packageName: body });
    }
  }
  return packages;
}

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

/**
 * Parses `dumpsys package NAME`. Returns undefined when the package is not installed (the output
 * has no `Package [NAME]` section; Android prints "Unable to find package" or nothing).
 */
export function parsePackageDetails(
  output: string,
  packageName: string,
): PackageDetails | undefined {
  const lines = output.split('\n');
  const start = lines.findIndex((line) => line.trim().startsWith(`Package [${packageName}]`));
  if (start < 0) return undefined;
  const section: string[] = [];
  const baseIndent = (lines[start] as string).search(/\S/);
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.trim() !== '' && line.search(/\S/) <= baseIndent) break;
    section.push(line);
  }
  const field = (name: string): string | undefined => {
    for (const line of section) {
      const match = new RegExp(`(?:^|\\s)${name}=(\\S+(?: \\d\\d:\\d\\d:\\d\\d)?)`).exec(line);
      if (match) return match[1];
    }
    return undefined;
  };
  const requested: string[] = [];
  const granted = new Set<string>();
  const denied = new Set<string>();
  let block: 'requested' | 'install' | 'runtime' | undefined;
  for (const line of section) {
    const trimmed = line.trim();
    if (trimmed === 'requested permissions:') block = 'requested';
    else if (trimmed === 'install permissions:') block = 'install';
    else if (trimmed === 'runtime permissions:') block = 'runtime';
    else if (/^[a-zA-Z][\w.]*\.[\w.]+(?::|$)/.test(trimmed) && block !== undefined) {
      const match = /^([\w.]+)(?::\s*granted=(true|false))?/.exec(trimmed);
      if (!match) continue;
      const name = match[1] as string;
      if (block === 'requested') requested.push(name);
      else if (match[2] === 'true') granted.add(name);
      else if (match[2] === 'false') denied.add(name);
    } else if (trimmed.endsWith(':') || /^\w+=/.test(trimmed) || trimmed.startsWith('User ')) {
      block = trimmed === 'runtime permissions:' ? 'runtime' : undefined;
    }
  }
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
