// The package manager: `pm` (list, path, install, uninstall, clear …) and `dumpsys package`.
import { readApkManifest } from '../apk-manifest.js';
import type { SimApp } from '../device-model.js';
import type { SimDevice } from '../sim-device.js';
import { type CommandOutput, fail, ok } from './command-output.js';
import { formatDumpsysTime, hexId } from './dump-format.js';

/** `pm` (and `cmd package`): lists, installs, uninstalls, clears and grants as Android prints it. */
export function pm(device: SimDevice, args: string[]): CommandOutput {
  const [verb, ...rest] = args;
  if (verb === 'list' && rest[0] === 'packages') {
    const flags = rest.slice(1).filter((arg) => arg.startsWith('-'));
    const filter = rest.slice(1).find((arg) => !arg.startsWith('-'));
    const lines: string[] = [];
    for (const app of device.state.apps.values()) {
      if (flags.includes('-s') && !app.system) continue;
      if (flags.includes('-3') && app.system) continue;
      if (filter !== undefined && !app.packageName.includes(filter)) continue;
      const path = flags.includes('-f') ? `${apkPath(app)}=` : '';
      const version = flags.includes('--show-versioncode') ? ` versionCode:${app.versionCode}` : '';
      lines.push(`package:${path}${app.packageName}${version}`);
    }
    return ok(lines.length > 0 ? `${lines.join('\n')}\n` : '');
  }
  if (verb === 'list' && rest[0] === 'instrumentation') {
    const lines = [...device.state.apps.values()]
      .filter((app) => app.instrumentation !== undefined)
      .map(
        (app) =>
          `instrumentation:${app.packageName}/${app.instrumentation?.name} (target=${app.instrumentation?.targetPackage})`,
      );
    return ok(lines.length > 0 ? `${lines.join('\n')}\n` : '');
  }
  if (verb === 'path') {
    const app = rest[0] === undefined ? undefined : device.state.apps.get(rest[0]);
    return app
      ? ok(`package:${apkPath(app)}\n`)
      : { stdout: Buffer.alloc(0), stderr: '', exitCode: 1 };
  }
  if (verb === 'install') {
    const path = rest.filter((arg) => !arg.startsWith('-')).at(-1);
    const file = path === undefined ? undefined : device.state.files.get(path);
    if (!file) {
      return {
        stdout: Buffer.from(`\tpkg: ${path ?? ''}\nFailure [INSTALL_FAILED_INVALID_URI]\n`),
        stderr: '',
        exitCode: 1,
      };
    }
    const manifest = readApkManifest(file.data);
    if (!manifest) {
      return {
        stdout: Buffer.from(
          `\tpkg: ${path}\nFailure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse ${path}: Failed to load asset path ${path}]\n`,
        ),
        stderr: '',
        exitCode: 1,
      };
    }
    const existing = device.state.apps.get(manifest.packageName);
    if (existing && !rest.includes('-r')) {
      return {
        stdout: Buffer.from(
          `\tpkg: ${path}\nFailure [INSTALL_FAILED_ALREADY_EXISTS: Attempt to re-install ${manifest.packageName} without first uninstalling.]\n`,
        ),
        stderr: '',
        exitCode: 1,
      };
    }
    device.state.apps.set(manifest.packageName, {
      packageName: manifest.packageName,
      versionName: manifest.versionName,
      versionCode: manifest.versionCode,
      system: false,
      permissions: manifest.permissions,
      ...(manifest.instrumentation ? { instrumentation: manifest.instrumentation } : {}),
      firstInstallTime: existing?.firstInstallTime ?? device.state.now,
      lastUpdateTime: device.state.now,
    });
    return ok(`\tpkg: ${path}\nSuccess\n`);
  }
  if (verb === 'uninstall') {
    const packageName = rest.filter((arg) => !arg.startsWith('-')).at(-1) ?? '';
    const app = device.state.apps.get(packageName);
    if (!app)
      return {
        stdout: Buffer.from('Failure [DELETE_FAILED_INTERNAL_ERROR]\n'),
        stderr: '',
        exitCode: 1,
      };
    if (app.system)
      return {
        stdout: Buffer.from('Failure [DELETE_FAILED_INTERNAL_ERROR]\n'),
        stderr: '',
        exitCode: 1,
      };
    device.state.apps.delete(packageName);
    device.stopPackage(packageName);
    return ok('Success\n');
  }
  return fail(`Unknown command: ${verb ?? ''}\n`, 1);
}

/** `dumpsys package NAME`: versions, install times, permissions and the APK path of one package. */
export function dumpsysPackage(device: SimDevice, packageName: string | undefined): CommandOutput {
  const app = packageName === undefined ? undefined : device.state.apps.get(packageName);
  if (!app) return ok(`Unable to find package: ${packageName ?? ''}\n`);
  const id = hexId(app.packageName);
  const lines = [
    'Activity Resolver Table:',
    '  Non-Data Actions:',
    '      android.intent.action.MAIN:',
    `        ${id} ${app.packageName}/.MainActivity filter ${hexId(`${app.packageName}f`)}`,
    '',
    'Packages:',
    `  Package [${app.packageName}] (${id}):`,
    `    userId=${10_000 + (Number.parseInt(id, 16) % 900)}`,
    `    pkg=Package{${id} ${app.packageName}}`,
    `    codePath=${apkPath(app).replace(/\/base\.apk$/, '')}`,
    `    resourcePath=${apkPath(app).replace(/\/base\.apk$/, '')}`,
    `    legacyNativeLibraryDir=${apkPath(app).replace(/\/base\.apk$/, '')}/lib`,
    '    primaryCpuAbi=arm64-v8a',
    `    versionCode=${app.versionCode} minSdk=${app.minSdk ?? 24} targetSdk=${app.targetSdk ?? 33}`,
    `    versionName=${app.versionName}`,
    '    splits=[base]',
    '    apkSigningVersion=2',
    `    applicationInfo=ApplicationInfo{${hexId(`${app.packageName}a`)} ${app.packageName}}`,
    `    flags=[ ${app.system ? 'SYSTEM ' : ''}HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]`,
    `    timeStamp=${formatDumpsysTime(app.lastUpdateTime)}`,
    `    firstInstallTime=${formatDumpsysTime(app.firstInstallTime)}`,
    `    lastUpdateTime=${formatDumpsysTime(app.lastUpdateTime)}`,
    `    installerPackageName=${app.system ? 'null' : 'com.android.vending'}`,
    '    signatures=PackageSignatures{a1b2c3d version:2, signatures:[5f0e1d2c], past signatures:[]}',
    '    installPermissionsFixed=true',
    '    pkgFlags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]',
    '    requested permissions:',
    ...app.permissions.map((permission) => `      ${permission}`),
    '    install permissions:',
    ...app.permissions
      .filter((permission) => INSTALL_PERMISSIONS.has(permission))
      .map((permission) => `      ${permission}: granted=true`),
    `    User 0: ceDataInode=${Number.parseInt(id, 16)} installed=true hidden=false suspended=false distractionFlags=0 stopped=false notLaunched=false enabled=0 instant=false virtual=false`,
    '      gids=[3003]',
    '      runtime permissions:',
    ...app.permissions
      .filter((permission) => !INSTALL_PERMISSIONS.has(permission))
      .map(
        (permission) =>
          `        ${permission}: granted=false, flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]`,
      ),
    '',
  ];
  return ok(`${lines.join('\n')}\n`);
}

const INSTALL_PERMISSIONS = new Set([
  'android.permission.INTERNET',
  'android.permission.ACCESS_NETWORK_STATE',
  'android.permission.WAKE_LOCK',
  'android.permission.VIBRATE',
  'android.permission.FOREGROUND_SERVICE',
  'android.permission.RECEIVE_BOOT_COMPLETED',
]);

function apkPath(app: SimApp): string {
  return app.system
    ? `/system/priv-app/${app.packageName.split('.').at(-1)}/${app.packageName.split('.').at(-1)}.apk`
    : `/data/app/~~${hexId(app.packageName)}==/${app.packageName}-${hexId(`${app.packageName}i`)}==/base.apk`;
}
