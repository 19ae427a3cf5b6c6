export {
  OtlpTelemetry,
  type OtlpTelemetryOptions,
  type OtlpTelemetryStatus,
  type TraceCarrier,
} from './otlp-telemetry.js';
