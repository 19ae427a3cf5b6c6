import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import {
  createToolExecutor,
  defineTool,
  failureResult,
  RunPolicies,
  ToolCircuitBreaker,
  ToolErrorCode,
  ToolHints,
  ToolRegistry,
  type ToolResult,
  ToolSchema,
  ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OtlpTelemetry } from '../src/otlp/index.js';

// A real OTLP/HTTP receiver on 127.0.0.1 (JSON encoding, as the exporter sends it).

interface Received {
  path: string;
  contentType: string;
  body: string;
}

let receiver: Server;
let endpoint: string;
const received: Received[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        path: request.url ?? '',
        contentType: String(request.headers['content-type'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

type AnyValue = { stringValue?: string; intValue?: number | string; doubleValue?: number };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: AnyValue }[];
  status?: { code?: number };
}

function spansOf(bodies: Received[]): OtlpSpan[] {
  return bodies
    .filter((entry) => entry.path === '/v1/traces')
    .flatMap((entry) => {
      const json = JSON.parse(entry.body) as {
        resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      return json.resourceSpans.flatMap((resource) =>
        resource.scopeSpans.flatMap((scope) => scope.spans),
      );
    });
}

function attribute(span: OtlpSpan, key: string): string | number | undefined {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  if (!value) return undefined;
  return (
    value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue)
  );
}

describe('OtlpTelemetry', () => {
  it('exports one span per attempt under the client trace context, and metrics, without raw arguments', async () => {
    const breaker = new ToolCircuitBreaker();
    const telemetry = new OtlpTelemetry({
      endpoint,
      headers: { 'x-api-key': 'collector-key' },
      serviceInstanceId: 'replica-a',
      metricIntervalMs: 60_000,
      spanDelayMs: 60_000,
      breakerStates: () => breaker.snapshot(),
    });
    try {
      const registry = new ToolRegistry();
      let calls = 0;
      registry.register(
        defineTool({
          id: 'web_fetch',
          description: 'fixture',
          inputSchema: ToolSchema.object({ password: z.string() }),
          metadata: {
            category: 'network',
            risk: 'LOW',
            annotations: { ...ToolHints.readOnly, openWorldHint: true },
          },
          runPolicy: { ...RunPolicies.network, backoffBaseMs: 1, backoffMaxMs: 1, maxRetries: 1 },
          execute: (): ToolResult => {
            calls += 1;
            return calls === 1
              ? failureResult(ToolErrorCode.EXECUTION_FAILED, 'connection reset')
              : { ok: true, content: 'ok' };
          },
        }),
      );
      const traces = new ToolTraceRecorder();
      telemetry.attach(traces);
      const executor = createToolExecutor({
        registry,
        traces,
        circuitBreaker: breaker,
        runPolicies: {},
      });
      const unbind = telemetry.bindCall('call-1', {
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        tracestate: 'vendor=1',
      });
      const result = await executor.execute(
        'web_fetch',
        { password: 'hunter2-secret' },
        { callId: 'call-1' },
      );
      unbind();
      expect(result.ok).toBe(true);
      await executor.execute('web_fetch', { password: 'x' }, { callId: 'call-2' });
      await telemetry.flush();

      const spans = spansOf(received);
      const bound = spans.filter((span) => attribute(span, 'toolsys.call_id') === 'call-1');
      expect(
        bound.map((span) => [
          span.name,
          attribute(span, 'toolsys.attempt'),
          attribute(span, 'toolsys.outcome'),
        ]),
      ).toEqual([
        ['execute_tool web_fetch', 1, 'EXECUTION_FAILED'],
        ['execute_tool web_fetch', 2, 'ok'],
      ]);
      for (const span of bound) {
        expect(span.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
        expect(span.parentSpanId).toBe('00f067aa0ba902b7');
        expect(attribute(span, 'gen_ai.tool.name')).toBe('web_fetch');
        expect(attribute(span, 'toolsys.args.length')).toBe(14);
        expect(attribute(span, 'toolsys.args.fields')).toBe(
          '{"password":{"type":"string","length":14,"printable":14}}',
        );
      }
      expect(bound[0]?.status?.code).toBe(2);
      const unbound = spans.find((span) => attribute(span, 'toolsys.call_id') === 'call-2');
      expect(unbound?.traceId).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      expect(unbound?.parentSpanId ?? '').toBe('');

      const metricBodies = received.filter((entry) => entry.path === '/v1/metrics');
      expect(metricBodies.length).toBeGreaterThan(0);
      const metricNames = new Set(
        metricBodies.flatMap((entry) =>
          (
            JSON.parse(entry.body) as {
              resourceMetrics: { scopeMetrics: { metrics: { name: string }[] }[] }[];
            }
          ).resourceMetrics.flatMap((resource) =>
            resource.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => metric.name)),
          ),
        ),
      );
      expect([...metricNames].sort()).toEqual([
        'toolsys.breaker.state',
        'toolsys.tool.calls',
        'toolsys.tool.duration',
        'toolsys.tool.failures',
      ]);
      for (const entry of received) {
        expect(entry.contentType).toBe('application/json');
        expect(entry.body).not.toContain('hunter2');
      }
      expect(received.some((entry) => entry.body.includes('"replica-a"'))).toBe(true);
      expect(telemetry.status()).toMatchObject({ endpoint, exportedBatches: 1, failedExports: 0 });
    } finally {
      await telemetry.close();
    }
  });

  it('says whether the collector accepts an (empty) export', async () => {
    const up = new OtlpTelemetry({ endpoint, spanDelayMs: 60_000, metricIntervalMs: 60_000 });
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createNetServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const down = new OtlpTelemetry({
      endpoint: `http://127.0.0.1:${closedPort}`,
      spanDelayMs: 60_000,
      metricIntervalMs: 60_000,
    });
    try {
      expect(await up.checkReachable()).toEqual({ ok: true });
      expect(await down.checkReachable()).toEqual({ ok: false, error: 'ECONNREFUSED' });
      expect(received.at(-1)).toMatchObject({ path: '/v1/traces', body: '{"resourceSpans":[]}' });
    } finally {
      await up.close();
      await down.close();
    }
  });

  it('reports failed exports when the collector is unreachable, and never fails the call', async () => {
    const telemetry = new OtlpTelemetry({
      endpoint: 'http://127.0.0.1:1',
      spanDelayMs: 60_000,
      metricIntervalMs: 60_000,
      exportTimeoutMs: 2000,
    });
    try {
      const traces = new ToolTraceRecorder();
      telemetry.attach(traces);
      traces.record({
        callId: 'c',
        toolId: 'web_fetch',
        attempt: 1,
        args: {},
        started: performance.now(),
        result: { ok: true, content: 'ok' },
      });
      await telemetry.flush();
      expect(telemetry.status().failedExports).toBeGreaterThan(0);
      expect(telemetry.status().lastError).toBeTruthy();
    } finally {
      await telemetry.close();
    }
  }, 30_000);
});
