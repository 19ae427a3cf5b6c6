import { createInterface } from 'node:readline/promises';
import type {
  ConfirmationDecision,
  ConfirmationRequest,
  ConfirmFunction,
} from '@toolsys/core-tool-registry';
import { ConfigError, loadDeploymentConfig } from '../config.js';
import { confirmationLines } from '../confirmation-text.js';
import { type ComposeOptions, composeDeployment, type Deployment } from '../deployment.js';
import { type CliIo, UsageError } from './types.js';

/** The data directory of the config `--config` names (or the one found); problems are usage errors. */
export function configuredDataDir(io: CliIo, configPath: string | undefined): string {
  try {
    return loadDeploymentConfig({ env: io.env, ...(configPath ? { path: configPath } : {}) })
      .dataDir;
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/** Loads the config and composes the deployment; config problems become usage errors. */
export async function openDeployment(
  io: CliIo,
  options: {
    configPath?: string | undefined;
    confirm?: ConfirmFunction | undefined;
    unconfirmableHint?: ((request: ConfirmationRequest) => string) | undefined;
    /** See {@link ComposeOptions.detectionBoundMs}; default: wait for every probe. */
    detectionBoundMs?: number | undefined;
  } = {},
): Promise<Deployment> {
  let config: ReturnType<typeof loadDeploymentConfig>;
  try {
    config = loadDeploymentConfig({
      env: io.env,
      ...(options.configPath ? { path: options.configPath } : {}),
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  try {
    return await composeDeployment(config, {
      ...(options.confirm ? { confirm: options.confirm } : {}),
      ...(options.unconfirmableHint ? { unconfirmableHint: options.unconfirmableHint } : {}),
      ...(options.detectionBoundMs === undefined
        ? {}
        : { detectionBoundMs: options.detectionBoundMs }),
    });
  } catch (error) {
    // Plugin sections are checked only once the plugins are loaded.
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Asks on the terminal: [y]es once, [s]ession, [a]lways, [N]o. `input` is where the answer is
 * read (default: the process's stdin); the question goes to `io.stderr`.
 */
export function terminalConfirm(
  io: CliIo,
  input: NodeJS.ReadableStream = process.stdin,
): ConfirmFunction {
  return async (request) => {
    // The terminal echoes what is typed; everything shown goes through `io.stderr`.
    const prompt = createInterface({ input, terminal: false });
    try {
      // The request arrives escaped (the deployment's confirm escapes every question).
      io.stderr.write(
        `\n${confirmationLines(request).join('\n')}\nAllow? [y]es once, [s]ession, [a]lways, [N]o: `,
      );
      const answer = (await prompt.question('')).trim().toLowerCase();
      const decisions: Record<string, ConfirmationDecision> = {
        y: 'allow_once',
        yes: 'allow_once',
        s: 'allow_session',
        a: 'allow_always',
      };
      return decisions[answer] ?? 'deny';
    } finally {
      prompt.close();
    }
  };
}

/** Reads `--flag` and `--flag value` options, leaving positionals in order. */
export function splitArgs(
  args: string[],
  spec: { booleans?: readonly string[]; values?: readonly string[] },
): { positionals: string[]; flags: Set<string>; values: Map<string, string> } {
  const positionals: string[] = [];
  const flags = new Set<string>();
  const values = new Map<string, string>();
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === '--') {
      positionals.push(...args.slice(index + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (spec.booleans?.includes(name)) {
      flags.add(name);
    } else if (spec.values?.includes(name)) {
      const value = inline ?? args[index + 1];
      if (value === undefined) throw new UsageError(`--${name} needs a value.`);
      if (inline === undefined) index += 1;
      values.set(name, value);
    } else {
      throw new UsageError(`Unknown option --${name}.`);
    }
  }
  return { positionals, flags, values };
}
