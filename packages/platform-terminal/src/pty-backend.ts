import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { ToolPackageStatus } from '@toolsys/core-tool-registry';
import { findProgram } from './shells.js';

type PtyModule = typeof import('@lydell/node-pty');
type XtermModule = typeof import('@xterm/headless');

const require = createRequire(import.meta.url);
let pty: PtyModule | undefined;
let xterm: XtermModule | undefined;

/**
 * node-pty, loaded on the first terminal: importing this package (or detecting it) must not
 * load the native module. Synchronous, so that starting a session stays synchronous.
 */
export function loadPty(): PtyModule {
  pty ??= require('@lydell/node-pty') as PtyModule;
  return pty;
}

/** The headless xterm screen buffer, loaded with the first session. */
export function loadXterm(): XtermModule {
  xterm ??= require('@xterm/headless') as XtermModule;
  return xterm;
}

/**
 * Whether a PTY can be opened here, without opening one or loading node-pty: the prebuilt binary
 * for this platform is installed, the PTY multiplexer device is readable and writable, and the
 * shell sessions start (`shell` when configured, else bash, else sh) exists; the reason names it.
 * A PTY that still fails to open is reported by the first `terminal.open`.
 */
export async function findPtyBackend(
  env: Readonly<Record<string, string | undefined>> = process.env,
  shell?: string,
): Promise<ToolPackageStatus> {
  const binary = `@lydell/node-pty-${process.platform}-${process.arch}`;
  try {
    createRequire(require.resolve('@lydell/node-pty')).resolve(`${binary}/package.json`);
  } catch {
    return {
      enabled: false,
      reason: `no prebuilt PTY binary for ${process.platform}-${process.arch} (${binary} is not installed; reinstall without --omit=optional)`,
    };
  }
  if (process.platform !== 'win32') {
    try {
      await access('/dev/ptmx', constants.R_OK | constants.W_OK);
    } catch {
      return {
        enabled: false,
        reason: 'cannot open a PTY: /dev/ptmx is not readable and writable',
      };
    }
  }
  // The shell sessions start, as a session picks it: the configured one, else bash, else sh.
  const sessionShell =
    shell === undefined
      ? ((await findProgram('bash', env)) ??
        (await findProgram('sh', env)) ??
        (await findProgram('/bin/sh', env)))
      : await findProgram(shell, env);
  if (sessionShell === undefined) {
    return {
      enabled: false,
      reason:
        shell === undefined
          ? 'no bash or sh found on PATH or at /bin/sh'
          : `the configured shell "${shell}" was not found`,
    };
  }
  return { enabled: true, reason: `PTY available; sessions run ${sessionShell}` };
}
