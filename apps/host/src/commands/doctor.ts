import { TOOL_CATEGORIES } from '@toolsys/core-tool-registry';
import type { SharedStateStatus } from '@toolsys/state-redis';
import { checkAuditDirectory } from '../audit/audit-files.js';
import type { Deployment } from '../deployment.js';
import type { ScaleOutStatus } from '../scale-out.js';
import { unmatchedPatterns } from '../tool-selection.js';
import { commandInfo } from './catalog.js';
import { openDeployment, splitArgs } from './shared.js';
import { type CliCommand, UsageError } from './types.js';

/**
 * The tool patterns of the configuration that match no tool, served or off (the tools of packages
 * that are off are listed for this, as a call of one would).
 */
async function patternWarnings(deployment: Deployment): Promise<string[]> {
  const tools = deployment.config.config.tools;
  if (!tools?.include?.length && !tools?.exclude?.length) return [];
  const served = deployment.registry.list();
  const off = await deployment.registry.off.list();
  const unmatched = unmatchedPatterns(tools, {
    ids: [...served.map((tool) => tool.id), ...off.map((tool) => tool.id)],
    // A category's tools may all be left out by the very pattern: any category name is known.
    categories: new Set(TOOL_CATEGORIES),
    packageKeys: new Set(deployment.statuses.keys()),
  });
  return unmatched.map(
    (pattern) => `${pattern} matches no tool of any package; check its spelling`,
  );
}

/** `toolsys doctor`: which packages are on, which are off, and why. */
export const doctorCommand: CliCommand = {
  ...commandInfo('doctor'),
  async run(args, io) {
    const { flags, values, positionals } = splitArgs(args, {
      booleans: ['json'],
      values: ['config'],
    });
    if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}".`);
    const deployment = await openDeployment(io, { configPath: values.get('config') });
    try {
      // Every probe's full answer, however long it takes.
      await deployment.settled;
      const packages = [...deployment.statuses.entries()].map(([key, status]) => ({
        key,
        name: status.name,
        enabled: status.enabled,
        reason: status.reason,
        tools: status.tools,
      }));
      // Give a configured Redis a moment to answer, so the line says reachable or not.
      await deployment.stack.scaleOut.sharedState?.connection.waitUntilShared(REDIS_WAIT_MS);
      const collector = await deployment.stack.scaleOut.telemetry?.checkReachable();
      const scaleOut = deployment.stack.scaleOutStatus();
      const configWarnings = await patternWarnings(deployment);
      const audit = deployment.stack.audit;
      const auditState = audit ? await checkAuditDirectory(audit.directory) : 'off';
      const report = {
        config: deployment.config.file ?? null,
        configWarnings,
        workspaceRoot: deployment.config.workspaceRoot,
        dataDir: deployment.config.dataDir,
        audit: { directory: audit?.directory ?? null, state: auditState },
        tools: deployment.registry.size,
        toolMode: deployment.toolMode,
        packages,
        scaleOut: {
          ...scaleOut,
          ...(collector ? { otlp: { ...scaleOut.otlp, reachable: collector.ok } } : {}),
        },
      };
      if (flags.has('json')) {
        io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return 0;
      }
      const width = Math.max(...packages.map((entry) => entry.key.length), 8);
      const lines = [
        `config:    ${report.config ?? 'embedded default (no toolsys.config.json)'}`,
        `workspace: ${report.workspaceRoot}`,
        `data:      ${report.dataDir}`,
        `audit:     ${audit ? `${audit.directory} (${auditState})` : 'off (audit.enabled is false)'}`,
        ...describeScaleOut(scaleOut, collector),
        ...configWarnings.map((warning) => `warning:   ${warning}`),
        '',
        'packages:',
        ...packages.map(
          (entry) =>
            `  ${entry.enabled ? 'on ' : 'off'}  ${entry.key.padEnd(width)}  ${entry.enabled ? `${entry.tools} tools; ` : ''}${entry.reason}`,
        ),
        '',
        `${report.tools} tools in this deployment; MCP clients list ${report.toolMode === 'discover' ? 'only tool_search, tool_describe and tool_call (tools.mode "discover")' : 'every tool'}`,
        '',
      ];
      io.stdout.write(lines.join('\n'));
      return 0;
    } finally {
      await deployment.close();
    }
  },
};

/** How long doctor waits for a configured Redis to answer, in ms. */
const REDIS_WAIT_MS = 1500;

/** The `redis:` and `otlp:` lines of the report. */
export function describeScaleOut(
  status: ScaleOutStatus,
  collector?: { readonly ok: true } | { readonly ok: false; readonly error: string },
): string[] {
  const { redis, otlp } = status;
  let redisLine: string;
  if (!redis.configured) {
    redisLine = "not configured (rate limits, breakers, grants and traces are this process's own)";
  } else if (redis.mode === 'shared') {
    redisLine = `shared via ${redis.url} (keys ${redis.keyPrefix}*) since ${new Date(redis.since).toISOString()}${describeSubscriber(redis)}`;
  } else {
    redisLine = `unreachable, fallen back to local state since ${new Date(redis.since).toISOString()} (${redis.url}: ${redis.lastError ?? 'no answer'}); retrying in the background`;
  }
  let otlpLine: string;
  if (!otlp.configured) {
    otlpLine = 'not configured';
  } else {
    const failed = otlp.lastError ? `; last export failed: ${otlp.lastError}` : '';
    const reach =
      collector === undefined
        ? ''
        : collector.ok
          ? ', collector reachable'
          : `, collector unreachable (${collector.error}): spans and metrics are dropped until it answers`;
    otlpLine = `exporting to ${otlp.endpoint}${reach} (${otlp.exportedBatches} span batches sent, ${otlp.failedExports} failed exports${failed})`;
  }
  return [`redis:     ${redisLine}`, `otlp:      ${otlpLine}`];
}

/** How grant revocations reach this replica: over pub/sub, or only by the staleness window. */
function describeSubscriber(redis: SharedStateStatus): string {
  const window =
    redis.grantMaxStalenessMs === undefined
      ? ''
      : ` within ${formatWindow(redis.grantMaxStalenessMs)}`;
  if (!redis.subscriber) return '';
  if (redis.subscriber.state === 'subscribed') {
    const late =
      redis.grantMaxStalenessMs === undefined
        ? ''
        : ` (at most ${formatWindow(redis.grantMaxStalenessMs)} late when a message is lost)`;
    return `; grant revocations arrive over pub/sub${late}`;
  }
  return `; grant revocations not subscribed since ${new Date(redis.subscriber.since).toISOString()} (${redis.subscriber.lastError ?? 'connecting'}): they take effect here${window}`;
}

function formatWindow(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
