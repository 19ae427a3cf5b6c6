import { renderResult } from '@toolsys/core-tool-registry';
import { openDeployment, splitArgs, terminalConfirm } from './shared.js';
import { elideStreamedOutput, type StreamedOutput } from './streamed-output.js';
import { type CliCommand, UsageError } from './types.js';

/** Parses the JSON argument of `toolsys call`, naming the problem when it is not an object. */
export function parseCallArguments(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `The arguments are not valid JSON (${(error as Error).message}). Pass one JSON object, e.g. '{"expression":"2+3"}'.`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(
      `The arguments must be a JSON object, got ${Array.isArray(value) ? 'an array' : String(value === null ? 'null' : typeof value)}. Example: '{"expression":"2+3"}'.`,
    );
  }
  return value as Record<string, unknown>;
}

/** `toolsys call <id> [json]`: runs one call through the executor. */
export const callCommand: CliCommand = {
  name: 'call',
  summary: 'Call a tool through the full pipeline and print the result.',
  usage: 'toolsys call <id> [json-args] [--json] [--yes] [--config FILE]',
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
    const toolArgs = parseCallArguments(json);
    const confirm = flags.has('yes')
      ? async () => 'allow_once' as const
      : io.interactive
        ? terminalConfirm(io)
        : undefined;
    const deployment = await openDeployment(io, { configPath: values.get('config'), confirm });
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    process.once('SIGINT', onSignal);
    // The executor's timers are unref'd so that they never keep a server alive; here nothing else
    // would keep the process running until a waiting call (a sleep, a retry back-off) settles.
    const keepAlive = setInterval(() => {}, 60_000);
    const streamed: StreamedOutput = { stdout: '', stderr: '' };
    try {
      const result = await deployment.executor.execute(id, toolArgs, {
        sessionId: 'cli',
        signal: controller.signal,
        onEvent: (event) => {
          if (flags.has('json')) return;
          if (event.type === 'output') {
            io.stderr.write(event.text);
            if (event.stream === 'stdout' || event.stream === 'stderr') {
              streamed[event.stream] += event.text;
            }
          } else if (io.interactive) {
            const total = event.total ? `/${event.total}` : '';
            io.stderr.write(`[progress ${event.progress}${total}] ${event.message ?? ''}\n`);
          }
        },
      });
      if (flags.has('json')) io.stdout.write(`${JSON.stringify(result)}\n`);
      else {
        const rendered = renderResult(result);
        // On one terminal the streamed output is already on screen; a pipe gets it in full.
        const text =
          isTerminal(io.stdout) && isTerminal(io.stderr)
            ? elideStreamedOutput(rendered, streamed)
            : rendered;
        io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      }
      return result.ok ? 0 : 1;
    } finally {
      clearInterval(keepAlive);
      process.off('SIGINT', onSignal);
      await deployment.close();
    }
  },
};

function isTerminal(stream: object): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}
