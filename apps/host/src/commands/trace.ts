import { join } from 'node:path';
import { renderLatencyReport, summariseLatency } from '@toolsys/core-tool-registry';
import { readTraceFile, TRACE_FILE_NAME } from '../trace-file.js';
import { commandInfo } from './catalog.js';
import { configuredDataDir, splitArgs } from './shared.js';
import { type CliCommand, UsageError } from './types.js';

/** `toolsys trace`: recent spans and the latency histogram, across invocations. */
export const traceCommand: CliCommand = {
  ...commandInfo('trace'),
  async run(args, io) {
    const { flags, values, positionals } = splitArgs(args, {
      booleans: ['json'],
      values: ['limit', 'config'],
    });
    if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}".`);
    const limitText = values.get('limit') ?? '20';
    const limit = Number(limitText);
    if (!Number.isInteger(limit) || limit < 1) {
      throw new UsageError(`--limit must be a positive integer, got "${limitText}".`);
    }
    const dataDir = configuredDataDir(io, values.get('config'));
    const all = readTraceFile(join(dataDir, TRACE_FILE_NAME));
    const recent = all.slice(Math.max(0, all.length - limit));
    const histogram = summariseLatency(all);
    if (flags.has('json')) {
      io.stdout.write(
        `${JSON.stringify({ spans: recent, histogram, total: all.length }, null, 2)}\n`,
      );
      return 0;
    }
    if (all.length === 0) {
      io.stdout.write('No spans recorded yet. Call a tool (toolsys call <id>) first.\n');
      return 0;
    }
    io.stdout.write(`Recent spans (${recent.length} of ${all.length}):\n`);
    for (const span of recent) {
      const time = new Date(span.startedAt).toISOString().replace('T', ' ').slice(0, 19);
      io.stdout.write(
        `  ${time}  ${span.callId}  ${span.toolId}  #${span.attempt}  ${span.outcome}  ${formatMs(span.durationMs)}\n`,
      );
    }
    io.stdout.write(`\nLatency (${all.length} spans):\n${renderLatencyReport(histogram)}\n`);
    return 0;
  },
};

function formatMs(ms: number): string {
  return ms < 10 ? `${ms.toFixed(2)} ms` : `${Math.round(ms)} ms`;
}
