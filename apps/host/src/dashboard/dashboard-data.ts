import { firstSentence } from '@toolsys/core-tool-registry';
import type { ServedCall } from '../server/call-log.js';
import type { ToolHost } from '../server/tool-host.js';

/** Upper bounds (ms) of the latency histogram buckets; the last bucket is open. */
export const LATENCY_BUCKETS_MS: readonly number[] = [1, 5, 10, 50, 100, 500, 1_000, 5_000];

/** One bucket of the latency histogram. */
export interface LatencyBucket {
  /** Label such as `≤ 10 ms` or `> 5000 ms`. */
  readonly label: string;
  readonly count: number;
}

/** Counts call durations into {@link LATENCY_BUCKETS_MS}. */
export function latencyHistogram(
  calls: readonly Pick<ServedCall, 'durationMs'>[],
): LatencyBucket[] {
  const counts = new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0);
  for (const call of calls) {
    const index = LATENCY_BUCKETS_MS.findIndex((bound) => call.durationMs <= bound);
    const slot = index === -1 ? LATENCY_BUCKETS_MS.length : index;
    counts[slot] = (counts[slot] ?? 0) + 1;
  }
  const last = LATENCY_BUCKETS_MS[LATENCY_BUCKETS_MS.length - 1];
  return counts.map((count, index) => ({
    label: index < LATENCY_BUCKETS_MS.length ? `≤ ${LATENCY_BUCKETS_MS[index]} ms` : `> ${last} ms`,
    count,
  }));
}

/** The optional v3 parts of the execution stack the dashboard reads when present. */
interface OptionalStackParts {
  snapshot?: () => unknown;
  traces?: unknown;
}

/** Breaker and rate-limiter states per tool when the executor keeps them, else null. */
export function readPolicyStates(host: ToolHost): unknown {
  const stack = host.deployment.stack as unknown as OptionalStackParts;
  if (typeof stack.snapshot !== 'function') return null;
  try {
    return stack.snapshot();
  } catch {
    return null;
  }
}

/** Everything the dashboard page shows, as plain JSON. */
export function dashboardOverview(host: ToolHost): Record<string, unknown> {
  const { registry, usage, statuses } = host.deployment;
  const calls = host.calls.recent();
  return {
    tools: registry.list().map((tool) => ({
      id: tool.id,
      category: tool.metadata.category,
      risk: tool.metadata.risk,
      owner: tool.owner,
      description: firstSentence(tool.description, 160),
      annotations: tool.metadata.annotations,
      runPolicy: tool.runPolicy?.name ?? 'legacy',
      inputSchema: tool.inputSchema.jsonSchema,
    })),
    usage: usage.snapshot(),
    calls,
    histogram: latencyHistogram(calls),
    states: readPolicyStates(host),
    packages: [...statuses.entries()].map(([key, status]) => ({ key, ...status })),
  };
}
