// The `toolsys` CLI run as a child process from the sources, as a user runs it.
import { spawn } from 'node:child_process';
import { HOST_CLI, HOST_DIR, HOST_NODE_ARGS } from './stdio-mcp-session.js';

/** A finished CLI run. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `toolsys <args>`; `onStderr` sees stderr as it arrives (e.g. to act on a printed URL).
 * Killed after `timeoutMs`.
 */
export function runToolsys(
  args: readonly string[],
  options: { onStderr?: (text: string) => void; timeoutMs?: number } = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, [...HOST_NODE_ARGS, HOST_CLI, ...args], {
    cwd: HOST_DIR,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    options.onStderr?.(stderr);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}
