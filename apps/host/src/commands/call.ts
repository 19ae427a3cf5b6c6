import { failureResult, renderResult, type ToolResult } from '@toolsys/core-tool-registry';
import { newSessionId } from '../session-policy.js';
import { commandInfo } from './catalog.js';
import { openDeployment, splitArgs, terminalConfirm } from './shared.js';
import {
  createStreamedOutput,
  elideStreamedOutput,
  type StreamedOutput,
} from './streamed-output.js';
import { type CliCommand, type CliIo, UsageError } from './types.js';

/**
 * Parses the JSON argument of `toolsys call`. Text that is not JSON is a usage error; JSON that is
 * not an object (an array, a number, a string, null …) is the tool's INVALID_ARGUMENT failure, as
 * the same arguments would be over MCP.
 */
export function parseCallArguments(
  text: string | undefined,
): { ok: true; value: Record<string, unknown> } | { ok: false; result: ToolResult } {
  if (text === undefined || text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `The arguments are not valid JSON (${(error as Error).message}). Pass one JSON object, e.g. '{"expression":"2+3"}'.`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    return {
      ok: false,
      result: failureResult(
        'INVALID_ARGUMENT',
        `arguments must be a JSON object, received ${kind}`,
        {
          hint: `Pass one JSON object naming each argument, e.g. toolsys call calculate '{"expression":"2+3"}'; toolsys describe <id> shows a tool's arguments.`,
        },
      ),
    };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** `toolsys call <id> [json]`: runs one call through the executor. */
export const callCommand: CliCommand = {
  ...commandInfo('call'),
  async run(args, io) {
    const { flags, values, positionals } = splitArgs(args, {
      booleans: ['json', 'yes'],
      values: ['config'],
    });
    const [id, json, extra] = positionals;
    if (!id) throw new UsageError('Name the tool to call: toolsys call <id> [json-args].');
    if (extra !== undefined) {
      throw new UsageError(`Unexpected argument "${extra}". Quote the JSON arguments as one word.`);
    }
    const parsed = parseCallArguments(json);
    if (!parsed.ok) {
      printResult(io, parsed.result, flags.has('json'));
      return 1;
    }
    const toolArgs = parsed.value;
    const confirm = flags.has('yes')
      ? async () => 'allow_once' as const
      : io.interactive
        ? terminalConfirm(io)
        : undefined;
    const deployment = await openDeployment(io, {
      configPath: values.get('config'),
      confirm,
      unconfirmableHint: (request) =>
        `Do not retry on your own. To allow it, run the same command with --yes (this call only), or add "${request.toolId}" to permissions.alwaysAllow (or set permissions.${request.risk} to "allow") in toolsys.config.json.`,
    });
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    process.once('SIGINT', onSignal);
    // The executor's timers are unref'd so that they never keep a server alive; here nothing else
    // would keep the process running until a waiting call (a sleep, a retry back-off) settles.
    const keepAlive = setInterval(() => {}, 60_000);
    const streamed = createStreamedOutput();
    // Each run is its own session: an answer given to one run never covers a later one.
    const sessionId = newSessionId('cli');
    try {
      const result = await deployment.executor.execute(id, toolArgs, {
        sessionId,
        signal: controller.signal,
        onEvent: (event) => {
          if (flags.has('json')) return;
          if (event.type === 'output') {
            io.stderr.write(event.text);
            if (event.stream === 'stdout' || event.stream === 'stderr') {
              streamed[event.stream].append(event.text);
            }
          } else if (io.interactive) {
            const total = event.total ? `/${event.total}` : '';
            io.stderr.write(`[progress ${event.progress}${total}] ${event.message ?? ''}\n`);
          }
        },
      });
      // On one terminal the streamed output is already on screen; a pipe gets it in full.
      const shown = isTerminal(io.stdout) && isTerminal(io.stderr) ? streamed : undefined;
      printResult(io, result, flags.has('json'), shown);
      return result.ok ? 0 : 1;
    } finally {
      clearInterval(keepAlive);
      process.off('SIGINT', onSignal);
      await deployment.endSession(sessionId);
      await deployment.close();
    }
  },
};

/**
 * Prints a result: as JSON, or rendered without the output already streamed to the screen and
 * followed by the paths of its artifacts.
 */
function printResult(
  io: CliIo,
  result: ToolResult,
  asJson: boolean,
  streamed?: StreamedOutput,
): void {
  if (asJson) {
    io.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const rendered = renderResult(result);
  const text = streamed ? elideStreamedOutput(rendered, streamed) : rendered;
  io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  for (const artifact of result.ok ? (result.artifacts ?? []) : []) {
    // The text usually names the file already; a path it does not name gets a line of its own.
    if (!rendered.includes(artifact.path)) {
      io.stdout.write(`artifact: ${artifact.path} (${artifact.mimeType})\n`);
    }
  }
}

function isTerminal(stream: object): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}
