import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
} from '@opentelemetry/api';
import {
  type ExportResult,
  ExportResultCode,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type {
  CircuitBreakerState,
  ToolTraceRecorder,
  ToolTraceSpan,
} from '@toolsys/core-tool-registry';
import { displayUrl, scrubSecrets } from '@toolsys/core-tool-registry/text';

/** W3C trace context a client sent with a call (an MCP request's `_meta`). */
export interface TraceCarrier {
  /** `00-<trace id>-<span id>-<flags>`. */
  readonly traceparent?: string;
  /** Vendor trace state. */
  readonly tracestate?: string;
}

/** Options for {@link OtlpTelemetry}. */
export interface OtlpTelemetryOptions {
  /** The collector's OTLP/HTTP base URL, e.g. `http://127.0.0.1:4318` (`/v1/traces`, `/v1/metrics` appended). */
  endpoint: string;
  /** Headers sent with every export (e.g. an API key). */
  headers?: Readonly<Record<string, string>>;
  /** `service.name` of the resource. Default `toolsys`. */
  serviceName?: string;
  /** `service.instance.id` of the resource (the replica). */
  serviceInstanceId?: string;
  /** Interval of metric exports, in ms. Default 15 000. */
  metricIntervalMs?: number;
  /** Delay before a batch of spans is exported, in ms. Default 2000. */
  spanDelayMs?: number;
  /** Longest wait for one export, in ms. Default 5000. */
  exportTimeoutMs?: number;
  /** Breaker states for the `toolsys.breaker.state` gauge. */
  breakerStates?: () => readonly CircuitBreakerState[];
}

/** The exporter's state, as plain JSON for `toolsys doctor` and the dashboard. */
export interface OtlpTelemetryStatus {
  /** The base URL exported to. */
  readonly endpoint: string;
  /** Span batches the collector accepted. */
  readonly exportedBatches: number;
  /** Exports (spans or metrics) that failed. */
  readonly failedExports: number;
  /** When the last export succeeded, ms since the epoch. */
  readonly lastSuccessAt?: number;
  /** Why the last export failed, when the last one did. */
  readonly lastError?: string;
}

const BREAKER_VALUE: Record<CircuitBreakerState['state'], number> = {
  CLOSED: 0,
  HALF_OPEN: 1,
  OPEN: 2,
};

/** How many calls' trace contexts are kept at most (a bound against leaks). */
const MAX_BOUND_CALLS = 10_000;

/**
 * Exports the trace recorder's spans (one per attempt, the same fields, argument sizes but never
 * values) and metrics (calls, failures, a latency histogram per tool, breaker state) over
 * OTLP/HTTP (JSON) with the OpenTelemetry JS SDK. A call bound to a client's W3C trace context
 * (see {@link bindCall}) gets its spans as children of the client's span.
 */
export class OtlpTelemetry {
  readonly #endpoint: string;
  readonly #headers: Record<string, string>;
  /** Parts of the endpoint that are credentials, never shown in a status or error. */
  readonly #secrets: readonly string[];
  readonly #tracerProvider: BasicTracerProvider;
  readonly #meterProvider: MeterProvider;
  readonly #propagator = new W3CTraceContextPropagator();
  readonly #contexts = new Map<string, Context>();
  readonly #detach: (() => void)[] = [];
  readonly #record: (span: ToolTraceSpan) => void;
  #exportedBatches = 0;
  #failedExports = 0;
  #lastSuccessAt: number | undefined;
  #lastError: string | undefined;

  constructor(options: OtlpTelemetryOptions) {
    const base = options.endpoint.trim().replace(/\/+$/, '');
    this.#endpoint = base;
    // Credentials in the endpoint's user-info travel as Basic authentication (fetch refuses URLs
    // with user-info); the URLs themselves never carry them.
    const headers = { ...basicAuthorization(base), ...options.headers };
    this.#headers = headers;
    this.#secrets = endpointSecrets(base);
    const timeoutMillis = options.exportTimeoutMs ?? 5000;
    const resource = resourceFromAttributes({
      'service.name': options.serviceName ?? 'toolsys',
      ...(options.serviceInstanceId ? { 'service.instance.id': options.serviceInstanceId } : {}),
    });
    const spanExporter = this.#observed(
      new OTLPTraceExporter({ url: signalUrl(base, 'traces'), headers, timeoutMillis }),
    );
    this.#tracerProvider = new BasicTracerProvider({
      resource,
      spanProcessors: [
        new BatchSpanProcessor(spanExporter, {
          scheduledDelayMillis: options.spanDelayMs ?? 2000,
          exportTimeoutMillis: timeoutMillis,
        }),
      ],
    });
    const metricExporter = new OTLPMetricExporter({
      url: signalUrl(base, 'metrics'),
      headers,
      timeoutMillis,
    });
    const originalExport = metricExporter.export.bind(metricExporter);
    metricExporter.export = (metrics, done) =>
      originalExport(metrics, (result) => {
        this.#note(result, false);
        done(result);
      });
    this.#meterProvider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: metricExporter,
          exportIntervalMillis: options.metricIntervalMs ?? 15_000,
          exportTimeoutMillis: timeoutMillis,
        }),
      ],
    });
    const tracer = this.#tracerProvider.getTracer('@toolsys/state-redis');
    const meter = this.#meterProvider.getMeter('@toolsys/state-redis');
    const calls = meter.createCounter('toolsys.tool.calls', {
      description:
        'Tool calls (first attempts and calls refused before running), by tool and outcome.',
    });
    const failures = meter.createCounter('toolsys.tool.failures', {
      description: 'Failed attempts, by tool and error code.',
    });
    const duration = meter.createHistogram('toolsys.tool.duration', {
      description: 'Duration of each attempt, by tool.',
      unit: 'ms',
      advice: { explicitBucketBoundaries: [1, 10, 100, 1000, 10_000] },
    });
    const breakerStates = options.breakerStates;
    if (breakerStates) {
      meter
        .createObservableGauge('toolsys.breaker.state', {
          description: 'Circuit breaker state per tool: 0 closed, 1 half-open, 2 open.',
        })
        .addCallback((result) => {
          for (const state of breakerStates()) {
            result.observe(BREAKER_VALUE[state.state], { 'toolsys.tool_id': state.toolId });
          }
        });
    }
    this.#record = (span) => {
      const attributes = spanAttributes(span);
      const parent = this.#contexts.get(span.callId) ?? ROOT_CONTEXT;
      const otelSpan = tracer.startSpan(
        `execute_tool ${span.toolId}`,
        { kind: SpanKind.INTERNAL, startTime: span.startedAt, attributes },
        parent,
      );
      if (span.outcome !== 'ok') {
        otelSpan.setStatus({ code: SpanStatusCode.ERROR, message: span.outcome });
      }
      otelSpan.end(span.startedAt + span.durationMs);
      const tool = { 'toolsys.tool_id': span.toolId };
      if (span.attempt <= 1) calls.add(1, { ...tool, 'toolsys.outcome': span.outcome });
      if (span.outcome !== 'ok') failures.add(1, { ...tool, 'toolsys.outcome': span.outcome });
      duration.record(span.durationMs, tool);
    };
  }

  /** Exports every span the recorder records from now on. */
  attach(recorder: ToolTraceRecorder): void {
    this.#detach.push(recorder.onSpan((span) => this.record(span)));
  }

  /** Exports one span (and counts it in the metrics). Never throws. */
  record(span: ToolTraceSpan): void {
    try {
      this.#record(span);
    } catch {
      // Telemetry must never fail a call.
    }
  }

  /**
   * Makes the spans of call `callId` children of the client's span in `carrier` (ignored when it
   * holds no valid `traceparent`); returns the function that unbinds it once the call is over.
   */
  bindCall(callId: string, carrier: TraceCarrier | undefined): () => void {
    if (!carrier?.traceparent) return NOOP;
    const context = this.#propagator.extract(
      ROOT_CONTEXT,
      {
        traceparent: carrier.traceparent,
        ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}),
      },
      defaultTextMapGetter,
    );
    if (context === ROOT_CONTEXT) return NOOP;
    if (this.#contexts.size >= MAX_BOUND_CALLS) {
      const oldest = this.#contexts.keys().next().value;
      if (oldest !== undefined) this.#contexts.delete(oldest);
    }
    this.#contexts.set(callId, context);
    return () => this.#contexts.delete(callId);
  }

  /** The exporter's state. */
  status(): OtlpTelemetryStatus {
    return {
      // Shown by the dashboard and `toolsys doctor`: no user-info, no query (`?api_key=`).
      endpoint: displayUrl(this.#endpoint),
      exportedBatches: this.#exportedBatches,
      failedExports: this.#failedExports,
      ...(this.#lastSuccessAt !== undefined ? { lastSuccessAt: this.#lastSuccessAt } : {}),
      ...(this.#lastError !== undefined
        ? { lastError: scrubSecrets(this.#lastError, this.#secrets) }
        : {}),
    };
  }

  /**
   * Sends an empty trace export to the collector (a valid OTLP request that records nothing) and
   * says whether it was accepted, within `timeoutMs`. For `toolsys doctor`.
   */
  async checkReachable(timeoutMs = 2000): Promise<{ ok: true } | { ok: false; error: string }> {
    try {
      const response = await fetch(signalUrl(this.#endpoint, 'traces'), {
        method: 'POST',
        headers: { ...this.#headers, 'content-type': 'application/json' },
        body: '{"resourceSpans":[]}',
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body?.cancel();
      if (response.ok) {
        this.#lastSuccessAt = Date.now();
        return { ok: true };
      }
      return { ok: false, error: `HTTP ${response.status}` };
    } catch (error) {
      return { ok: false, error: scrubSecrets(describeFetchError(error), this.#secrets) };
    }
  }

  /** Exports pending spans and the current metrics now. */
  async flush(): Promise<void> {
    await Promise.allSettled([this.#tracerProvider.forceFlush(), this.#meterProvider.forceFlush()]);
  }

  /** Flushes, then stops exporting. */
  async close(): Promise<void> {
    for (const detach of this.#detach.splice(0)) detach();
    await Promise.allSettled([this.#tracerProvider.shutdown(), this.#meterProvider.shutdown()]);
  }

  #observed(exporter: SpanExporter): SpanExporter {
    return {
      export: (spans: ReadableSpan[], done: (result: ExportResult) => void) =>
        exporter.export(spans, (result) => {
          this.#note(result, true);
          done(result);
        }),
      shutdown: () => exporter.shutdown(),
      ...(exporter.forceFlush
        ? { forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve() }
        : {}),
    };
  }

  #note(result: ExportResult, spans: boolean): void {
    if (result.code === ExportResultCode.SUCCESS) {
      if (spans) this.#exportedBatches += 1;
      this.#lastSuccessAt = Date.now();
      this.#lastError = undefined;
    } else {
      this.#failedExports += 1;
      this.#lastError = result.error?.message ?? 'export failed';
    }
  }
}

const NOOP = (): void => {};

/** An `authorization` header for the endpoint's user-info, or nothing. */
function basicAuthorization(endpoint: string): Record<string, string> {
  try {
    const url = new URL(endpoint);
    if (url.username === '' && url.password === '') return {};
    const user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    return { authorization: `Basic ${Buffer.from(user).toString('base64')}` };
  } catch {
    return {};
  }
}

/** The endpoint's credentials as they may appear in an error: user-info, query values, the URL. */
function endpointSecrets(endpoint: string): string[] {
  const secrets = [endpoint];
  try {
    const url = new URL(endpoint);
    for (const value of [url.username, url.password, url.search, url.hash]) {
      if (value !== '') secrets.push(value, decodeURIComponent(value));
    }
    for (const value of url.searchParams.values()) secrets.push(value, encodeURIComponent(value));
  } catch {
    // Not a URL: only the whole text is known.
  }
  return secrets;
}

/**
 * The URL of one OTLP/HTTP signal (`/v1/traces`, `/v1/metrics`) under the endpoint: the path is
 * appended to the endpoint's path, so a query the endpoint carries (`?api_key=`) stays a query.
 */
function signalUrl(endpoint: string, signal: 'traces' | 'metrics'): string {
  try {
    const url = new URL(endpoint);
    url.username = '';
    url.password = '';
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/${signal}`;
    return url.href;
  } catch {
    return `${endpoint}/v1/${signal}`;
  }
}

/** The most telling part of a failed fetch: the socket error code (ECONNREFUSED …) if any. */
function describeFetchError(error: unknown): string {
  type Cause = { code?: unknown; errors?: Cause[]; cause?: Cause };
  let current = error as Cause | undefined;
  for (let depth = 0; current && depth < 4; depth += 1) {
    if (typeof current.code === 'string') return current.code;
    const first = current.errors?.[0];
    if (first && typeof first.code === 'string') return first.code;
    current = current.cause;
  }
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** The span's fields as attributes: ids, attempt, outcome and argument sizes (never values). */
function spanAttributes(span: ToolTraceSpan): Attributes {
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': span.toolId,
    'gen_ai.tool.call.id': span.callId,
    'toolsys.call_id': span.callId,
    'toolsys.tool_id': span.toolId,
    'toolsys.attempt': span.attempt,
    'toolsys.duration_ms': span.durationMs,
    'toolsys.outcome': span.outcome,
    ...(span.errorSlug ? { 'toolsys.error_slug': span.errorSlug } : {}),
    'toolsys.args.length': span.argsDigest.length,
    'toolsys.args.printable': span.argsDigest.printable,
    'toolsys.args.fields': JSON.stringify(span.argsDigest.fields),
  };
}
