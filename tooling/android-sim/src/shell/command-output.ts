// What a shell command of the sim returns, and the two ways it ends.
/** What one shell command produced. */
export interface CommandOutput {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly exitCode: number;
}

/** A command that printed `stdout` and exited 0. */
export function ok(stdout: string): CommandOutput {
  return { stdout: Buffer.from(stdout), stderr: '', exitCode: 0 };
}

/** A command that printed `stderr` and exited with `exitCode`. */
export function fail(stderr: string, exitCode: number): CommandOutput {
  return { stdout: Buffer.alloc(0), stderr, exitCode };
}
