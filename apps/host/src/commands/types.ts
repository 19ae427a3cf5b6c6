/** Where a command writes, and the environment it runs in. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly env: NodeJS.ProcessEnv;
  /** Whether a person can answer prompts. */
  readonly interactive: boolean;
  /** Width of the terminal help is wrapped to; default 80. */
  readonly columns?: number | undefined;
}

/** A CLI usage mistake: exit code 2 with the message. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A sub-command of `toolsys`. */
export interface CliCommand {
  readonly name: string;
  /** One line for `toolsys help`. */
  readonly summary: string;
  /** Usage line, e.g. `toolsys call <id> [json-args] [--json]`. */
  readonly usage: string;
  /** Runs the command; resolves to the exit code. */
  run(args: string[], io: CliIo): Promise<number>;
}
