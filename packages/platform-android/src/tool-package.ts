import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { defineToolPackage, type ToolPackageStatus } from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { CONNECT_DEVICE_STEP } from './adb-errors.js';
import { ANDROID_PACKAGE_NAME } from './package-name.js';
import type { UiBackendOptions } from './ui-backend-choice.js';

// The adb client, the UI backends and the tools load when a device is there, not at import: a
// deployment with no device pays only for this entry and the adb probe.

const run = promisify(execFile);

/** The `packages.platform-android` section of `toolsys.config.json`. */
export const androidConfigSchema = z
  .object({
    serial: z
      .string()
      .min(1)
      .optional()
      .describe(
        'adb serial of the device to drive. Default: TOOLSYS_ANDROID_SERIAL, else the only device attached.',
      ),
    adbPath: z.string().min(1).optional().describe('The adb binary. Default `adb` on PATH.'),
    adbServerPort: z
      .number()
      .int()
      .min(1)
      .max(65_535)
      .optional()
      .describe('Port of the adb server. Default ANDROID_ADB_SERVER_PORT, else 5037.'),
    adbServerHost: z
      .string()
      .min(1)
      .optional()
      .describe('Host of the adb server. Default 127.0.0.1.'),
    commandTimeoutMs: z
      .number()
      .int()
      .min(1_000)
      .max(600_000)
      .optional()
      .describe('Time limit of one adb command unless a tool sets its own, in ms. Default 20000.'),
    maxOutputBytes: z
      .number()
      .int()
      .min(64 * 1024)
      .max(256 * 1024 * 1024)
      .optional()
      .describe(
        'Most bytes read from one device command (a UI dump, a log, a shell output); past it reading stops and the result says so. Default 8388608 (8 MiB).',
      ),
    settleMs: z
      .number()
      .int()
      .min(0)
      .max(5_000)
      .optional()
      .describe(
        'Pause after a tap, swipe or typing before the screen is read again, in ms. Default 400.',
      ),
    ui: z
      .enum(['adb', 'appium', 'auto'])
      .optional()
      .describe(
        'Backend of ui_dump, ui_tap, ui_swipe, input_text and screenshot: "adb" (default), "appium" (Appium 3 + UiAutomator2), or "auto" (Appium when appiumUrl answers or a local one can be started, else adb; a call whose Appium is unusable runs through adb, and Appium is tried again after appiumRetryMs). App and device tools always use adb.',
      ),
    appiumUrl: z
      .string()
      .url()
      .optional()
      .describe(
        'A running Appium server, e.g. "http://127.0.0.1:4723". Without it, ui "appium" starts a local one on 127.0.0.1.',
      ),
    appiumStart: z
      .boolean()
      .optional()
      .describe(
        'Without appiumUrl, start a local Appium (from the appium and appium-uiautomator2-driver packages) on first use. Default true.',
      ),
    appiumPort: z
      .number()
      .int()
      .min(1)
      .max(65_535)
      .optional()
      .describe('Port of the local Appium on 127.0.0.1. Default: a free port.'),
    appiumHome: z
      .string()
      .min(1)
      .optional()
      .describe(
        'APPIUM_HOME of the local Appium: a folder whose package.json depends on the driver. Default: this package.',
      ),
    appiumRetryMs: z
      .number()
      .int()
      .min(1_000)
      .max(3_600_000)
      .optional()
      .describe(
        'With ui "auto": how long adb is used after Appium was missing or unusable before Appium is tried again, in ms. Default 60000.',
      ),
    appiumCapabilities: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'Extra capabilities for every Appium session (e.g. "appium:systemPort"), merged over the defaults.',
      ),
  })
  .strict();

/** The parsed `packages.platform-android` config. */
export type AndroidPackageConfig = z.infer<typeof androidConfigSchema>;

interface Resolved {
  serial: string | undefined;
  adbPath: string;
  port: number;
  host: string;
}

function uiOptions(config: AndroidPackageConfig, resolved: Resolved): UiBackendOptions {
  return {
    ...(config.ui ? { ui: config.ui } : {}),
    ...(config.appiumUrl ? { appiumUrl: config.appiumUrl } : {}),
    ...(config.appiumStart === undefined ? {} : { appiumStart: config.appiumStart }),
    ...(config.appiumPort ? { appiumPort: config.appiumPort } : {}),
    ...(config.appiumHome ? { appiumHome: config.appiumHome } : {}),
    ...(config.appiumCapabilities ? { appiumCapabilities: config.appiumCapabilities } : {}),
    ...(config.appiumRetryMs === undefined ? {} : { appiumRetryMs: config.appiumRetryMs }),
    adbPath: resolved.adbPath,
    adbServerPort: resolved.port,
    adbServerHost: resolved.host,
  };
}

function resolveConfig(config: AndroidPackageConfig, env: NodeJS.ProcessEnv): Resolved {
  const envPort = Number(env.ANDROID_ADB_SERVER_PORT);
  return {
    serial: config.serial ?? (env.TOOLSYS_ANDROID_SERIAL || undefined),
    adbPath: config.adbPath ?? 'adb',
    port: config.adbServerPort ?? (Number.isInteger(envPort) && envPort > 0 ? envPort : 5037),
    host: config.adbServerHost ?? '127.0.0.1',
  };
}

/** Whether something accepts TCP connections on `host`:`port` (gives up after a second). */
export async function isListening(host: string, port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (value: boolean) => {
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Whether adb, its server and a device are there (the tools need all three). With `deciding`
 * probes the adb binary is not run: a listening server and an online device decide.
 */
async function detectAdb(
  config: AndroidPackageConfig,
  env: NodeJS.ProcessEnv,
  probes: 'all' | 'deciding',
): Promise<ToolPackageStatus> {
  const resolved = resolveConfig(config, env);
  let label = `adb server on ${resolved.host}:${resolved.port}`;
  if (probes === 'all') {
    let version: string;
    try {
      const { stdout } = await run(resolved.adbPath, ['version'], {
        timeout: 5_000,
        env: { ...env },
      });
      version = /Android Debug Bridge version (\S+)/.exec(stdout)?.[1] ?? 'unknown version';
    } catch {
      return {
        enabled: false,
        reason: `adb not found (${resolved.adbPath}); install Android platform-tools or set packages.platform-android.adbPath.`,
      };
    }
    label = `adb ${version}`;
  }
  if (!(await isListening(resolved.host, resolved.port))) {
    return {
      enabled: false,
      reason: `${probes === 'all' ? `${label} found, but no` : 'No'} adb server listens on ${resolved.host}:${resolved.port}; run \`adb start-server\` and attach a device.`,
    };
  }
  const { AndroidDeviceManager } = await import('./android-device.js');
  const manager = new AndroidDeviceManager({
    adbServerPort: resolved.port,
    adbServerHost: resolved.host,
    adbPath: resolved.adbPath,
    ...(resolved.serial ? { serial: resolved.serial } : {}),
  });
  try {
    const devices = await manager.listDevices();
    const listing = devices.map((device) => `${device.serial} (${device.state})`).join(', ');
    const online = devices.filter(
      (device) => device.state === 'device' || device.state === 'emulator',
    );
    if (resolved.serial !== undefined) {
      const chosen = online.find((device) => device.serial === resolved.serial);
      return chosen
        ? { enabled: true, reason: `${label}: device ${chosen.serial} online.` }
        : {
            enabled: false,
            reason: `${label}: configured device ${resolved.serial} is not online (attached: ${listing || 'none'}); ${CONNECT_DEVICE_STEP}.`,
          };
    }
    if (online.length === 0)
      return {
        enabled: false,
        reason: `${label}: no device online (attached: ${listing || 'none'}); ${CONNECT_DEVICE_STEP}.`,
      };
    if (online.length === 1)
      return {
        enabled: true,
        reason: `${label}: device ${(online[0] as { serial: string }).serial} online.`,
      };
    return {
      enabled: true,
      reason: `${label}: ${online.length} devices online (${listing}); tools need "serial" or packages.platform-android.serial.`,
    };
  } catch (error) {
    return {
      enabled: false,
      reason: `${label}: could not list devices: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/**
 * The platform-android package entry: on when adb is installed, its server runs and a device is
 * online (the configured one, or any). Detection starts nothing: without a running adb server it
 * says how to start one.
 */
export const toolPackage = defineToolPackage<AndroidPackageConfig>({
  name: ANDROID_PACKAGE_NAME,
  key: 'platform-android',
  description:
    'Android device tools over adb: apps, settings, logs, notifications, UI tree, taps, typing, screenshots.',
  configSchema: androidConfigSchema,
  async detect({ config, env, probes = 'all' }): Promise<ToolPackageStatus> {
    const status = await detectAdb(config, env, probes);
    // Which UI backend serves (and whether an Appium URL answers) only refines the reason.
    if (!status.enabled || probes === 'deciding') return status;
    const { describeUiBackend } = await import('./ui-backend-choice.js');
    const ui = await describeUiBackend(uiOptions(config, resolveConfig(config, env)));
    return { ...status, reason: `${status.reason} ${ui}` };
  },
  async create({ config, env, workspaceRoot, dataDir, environment, registry }) {
    const resolved = resolveConfig(config, env);
    if (config.ui === 'appium' && config.appiumStart === false && !config.appiumUrl) {
      throw new TypeError(
        'packages.platform-android: ui "appium" with appiumStart false needs appiumUrl.',
      );
    }
    const { createAndroidTools } = await import('./create-android-tools.js');
    const { tools, dispose, endSession } = createAndroidTools({
      ...uiOptions(config, resolved),
      env,
      workspaceRoot,
      dataDir,
      ...(environment ? { environment } : {}),
      registry,
      adbPath: resolved.adbPath,
      adbServerPort: resolved.port,
      adbServerHost: resolved.host,
      ...(resolved.serial ? { serial: resolved.serial } : {}),
      ...(config.settleMs === undefined ? {} : { settleMs: config.settleMs }),
      ...(config.commandTimeoutMs === undefined
        ? {}
        : { commandTimeoutMs: config.commandTimeoutMs }),
      ...(config.maxOutputBytes === undefined ? {} : { maxOutputBytes: config.maxOutputBytes }),
    });
    // The adb client opens a connection per call and holds nothing between calls; the Appium
    // backend holds sessions (and maybe a local server) until dispose.
    return { tools, dispose, endSession };
  },
});
