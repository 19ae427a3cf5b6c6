import {
  firstSentence,
  LATENCY_BUCKETS,
  type ToolLatencySummary,
} from '@toolsys/core-tool-registry';
import type { ToolHost } from '../server/tool-host.js';
import { type DashboardViewer, principalLabel, seesCall, seesSpan } from './dashboard-viewer.js';

/** How many trace spans and served calls the page receives at load. */
const RECENT_LIMIT = 200;

/** One bar of the latency histogram. */
export interface LatencyBar {
  /** Bucket label, e.g. `<10ms`. */
  readonly label: string;
  readonly count: number;
}

/** Adds the per-tool latency buckets into one histogram over every tool, in bucket order. */
export function totalHistogram(summaries: readonly ToolLatencySummary[]): LatencyBar[] {
  return LATENCY_BUCKETS.map(({ label }) => ({
    label,
    count: summaries.reduce((sum, summary) => sum + (summary.buckets[label] ?? 0), 0),
  }));
}

/**
 * Everything the dashboard page shows, as plain JSON: calls and spans are the viewer's own (an
 * operator's view holds everyone's, and the breaker, limiter and replica states); the tools and
 * their usage figures are the deployment's.
 */
export function dashboardOverview(
  host: ToolHost,
  viewer: DashboardViewer,
): Record<string, unknown> {
  const { registry, usage, statuses, stack } = host.deployment;
  // The tools the viewer may call: another principal's shortcuts and skills are neither listed
  // nor named by a usage figure (an operator sees every figure, as it sees every call).
  const tools = registry.list(viewer.principal);
  const ids = new Set(tools.map((tool) => tool.id));
  const named = (toolId: string) => viewer.isOperator || ids.has(toolId);
  const summaries = stack.traces.histogram().filter((summary) => named(summary.toolId));
  return {
    tools: tools.map((tool) => ({
      id: tool.id,
      category: tool.metadata.category,
      risk: tool.metadata.risk,
      owner: tool.owner,
      description: firstSentence(tool.description, 160),
      annotations: tool.metadata.annotations,
      runPolicy: tool.runPolicy?.name ?? 'legacy',
      inputSchema: tool.inputSchema.jsonSchema,
    })),
    // Another caller's last error message may name what they worked on: only its code is shown.
    usage: viewer.isOperator
      ? usage.snapshot()
      : usage
          .snapshot()
          .filter((figures) => named(figures.toolId))
          .map(({ lastError, ...figures }) => ({
            ...figures,
            ...(lastError ? { lastError: { code: lastError.code } } : {}),
          })),
    latency: summaries.map(({ toolId, count, failures, p50Ms, p95Ms, maxMs }) => ({
      toolId,
      count,
      failures,
      p50Ms,
      p95Ms,
      maxMs,
    })),
    histogram: totalHistogram(summaries),
    spans: stack.traces
      .spans()
      .filter((span) => seesSpan(viewer, span))
      .slice(-RECENT_LIMIT),
    calls: host.calls
      .recent()
      .filter((call) => seesCall(viewer, call))
      .slice(-RECENT_LIMIT),
    viewer: {
      principal: principalLabel(viewer),
      isOperator: viewer.isOperator,
      ...(viewer.csrf ? { csrf: viewer.csrf } : {}),
    },
    ...(viewer.isOperator ? { states: stack.snapshot(), scaleOut: stack.scaleOutStatus() } : {}),
    // Which replica served this page (behind a load balancer, the next load may be another).
    replica: stack.scaleOut.sharedState?.replicaId ?? null,
    packages: [...statuses.entries()].map(([key, status]) => ({ key, ...status })),
  };
}

/**
 * {@link dashboardOverview} plus the recent spans of every replica from Redis (`sharedSpans`, null
 * when shared state is not configured or Redis does not answer within its bound).
 */
export async function dashboardOverviewShared(
  host: ToolHost,
  viewer: DashboardViewer,
): Promise<Record<string, unknown>> {
  const overview = dashboardOverview(host, viewer);
  const sharedSpans = await host.deployment.stack.sharedSpans(RECENT_LIMIT);
  return {
    ...overview,
    sharedSpans: sharedSpans?.filter((span) => seesSpan(viewer, span)) ?? null,
  };
}
