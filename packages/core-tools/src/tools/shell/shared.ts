// The shell tool's options.
import type { approvedEnvironment, sandboxEnvironment } from '@toolsys/platform';

/** Options for `createShellTools`. */
export interface ShellToolsOptions {
  /** Directory commands run in and are confined to. */
  workspaceRoot: string;
  /** Extra command names (basenames) that run without asking. Default: none. */
  allowCommands?: readonly string[];
  /** Extra command names (basenames) that are always refused. Default: none. */
  denyCommands?: readonly string[];
  /** When false, every command that is not denied needs a confirmation. Default true. */
  useAllowList?: boolean;
  /**
   * Whether commands that run after asking get only the allow-list of {@link approvedEnvironment}
   * (PATH, HOME, locale, terminal … and {@link passEnvironment}). Default true; false passes the
   * whole environment. Commands that run unasked in the sandbox always get only the allow-list
   * of {@link sandboxEnvironment}.
   */
  scrubEnvironment?: boolean;
  /**
   * More variables that commands run after asking receive (`JAVA_HOME`, `GOPATH` …). Names that
   * read as credentials and credential-shaped values are withheld all the same. Default none.
   */
  passEnvironment?: readonly string[];
  /** The environment commands start from. Default: this process's environment. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Timeout when the call gives none, in ms. Default 120 000. */
  defaultTimeoutMs?: number;
  /** Longest timeout a call may ask for, in ms. Default 600 000. */
  maxTimeoutMs?: number;
  /** Bytes kept of each output stream (half head, half tail). Default 32 KiB. */
  maxOutputBytes?: number;
  /**
   * The OS sandbox read-only commands run in without asking. `auto` (default): bubblewrap when
   * its probe passes; `off`: no sandbox, so every command asks. Without a working sandbox nothing
   * runs without asking.
   */
  sandbox?: 'auto' | 'off';
  /** The bubblewrap executable. Default: `bwrap` on PATH. */
  sandboxExecutable?: string;
}
