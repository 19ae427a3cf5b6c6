// The shell tools group: shell_execute, its output scrubbed of secrets.
import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import { withSecretScrubbing } from '@toolsys/core-tool-registry/text';
import type { ShellToolsOptions } from './shared.js';
import { createShellExecuteTool } from './shell-execute.js';

export type { ShellToolsOptions } from './shared.js';

/**
 * `shell_execute`: runs a bash command in the workspace through a three-level permission chain —
 * deny-list (refused without asking), read-only allow-list (runs without asking, and only inside
 * the bubblewrap sandbox of `command-sandbox.ts`; without a working sandbox it asks too), everything
 * else through the injected confirm. Streams output, kills the whole process tree on timeout,
 * and returns the exit code with the head and tail of long output. The tool is self-gated: the
 * risk gate skips it and it asks per command.
 */
export function createShellTools(options: ShellToolsOptions): AnyToolDefinition[] {
  // Output can print credentials (a config file, a log) under any name: shown only scrubbed.
  return [withSecretScrubbing(createShellExecuteTool(options))];
}
