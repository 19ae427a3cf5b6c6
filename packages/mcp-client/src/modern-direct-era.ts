import {
  type CallToolResult,
  type Client,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/client';
import type { DecodedCall, DirectCallEra, ResumedCall } from './direct-tool-calls.js';
import { sdkCallOptions } from './sdk-call-options.js';

/** The only era whose `tools/call` this module takes over. */
const MODERN_REVISION = '2026-07-28';

/** The SDK codec's decoding of a result (raw-first `resultType` discrimination). */
type SdkDecoded =
  | { kind: 'complete'; result: unknown }
  | { kind: 'invalid'; error: unknown }
  | { kind: string };

/** The parts of the SDK's 2026-07-28 wire codec a direct call uses. */
interface SdkWireCodec {
  readonly era: string;
  decodeResult(method: string, raw: unknown): SdkDecoded;
  validateResult(
    method: string,
    raw: unknown,
  ): { ok: true; value: unknown } | { ok: false; reason: string; message?: string };
}

/**
 * The SDK client's own request machinery of the 2026-07-28 era: the per-request `_meta`
 * envelope, the era codec that checks results, and the multi-round-trip engine that answers an
 * `input_required` result and retries. Not public API of the SDK; {@link modernDirectEra} checks
 * each part is there before it relies on it.
 */
interface ModernInternals {
  _outboundMetaEnvelope(): Record<string, unknown> | undefined;
  _wireCodec(): SdkWireCodec;
  _resolveNonCompleteResult(decoded: unknown, flow: unknown): Promise<CallToolResult>;
}

/**
 * What a direct `tools/call` on a 2026-07-28 connection needs from `client` (connected in that
 * era), or undefined when the SDK does not offer it (every call then goes through the SDK).
 *
 * Requests and cancellations carry the envelope the SDK itself would attach (protocol version,
 * client info, client capabilities). Results are decoded and checked by the SDK's own codec: a
 * missing, non-string or unknown `resultType` fails as the SDK fails it, a `complete` result is
 * checked against the era's `CallToolResult` schemas. An `input_required` result is handed to the
 * SDK's multi-round-trip engine exactly as its own request path hands it over, with the call's
 * original params, its start time (the time limit covers every round), signal and progress; the
 * rounds after the first go through the SDK's request path.
 */
export function modernDirectEra(client: Client): DirectCallEra | undefined {
  const sdk = client as unknown as Partial<ModernInternals>;
  if (
    typeof sdk._outboundMetaEnvelope !== 'function' ||
    typeof sdk._wireCodec !== 'function' ||
    typeof sdk._resolveNonCompleteResult !== 'function'
  ) {
    return undefined;
  }
  const internals = sdk as ModernInternals;
  const codec = internals._wireCodec();
  if (
    codec?.era !== MODERN_REVISION ||
    typeof codec.decodeResult !== 'function' ||
    typeof codec.validateResult !== 'function'
  ) {
    return undefined;
  }
  const envelope = internals._outboundMetaEnvelope();
  if (envelope === undefined) return undefined;
  return {
    envelope: () => internals._outboundMetaEnvelope() ?? envelope,
    decode: (raw) => decode(codec, raw),
    resume: (pending, call) => resume(client, internals, codec, pending, call),
  };
}

function decode(codec: SdkWireCodec, raw: unknown): DecodedCall {
  const decoded = codec.decodeResult('tools/call', raw);
  if (decoded.kind === 'complete' && 'result' in decoded) {
    const checked = codec.validateResult('tools/call', decoded.result);
    if (checked.ok) return { kind: 'complete', result: checked.value as CallToolResult };
    // As the SDK's request path reports a result that fails the era's schema.
    return {
      kind: 'invalid',
      error: new SdkError(
        SdkErrorCode.InvalidResult,
        `Invalid result for tools/call: ${checked.message ?? checked.reason}`,
      ),
    };
  }
  if (decoded.kind === 'invalid' && 'error' in decoded) {
    return { kind: 'invalid', error: decoded.error };
  }
  if (decoded.kind === 'input_required') return { kind: 'input_required', pending: decoded };
  return {
    kind: 'invalid',
    error: new SdkError(
      SdkErrorCode.UnsupportedResultType,
      `Unsupported result type '${decoded.kind}' for tools/call`,
      { resultType: decoded.kind, method: 'tools/call' },
    ),
  };
}

async function resume(
  client: Client,
  internals: ModernInternals,
  codec: SdkWireCodec,
  pending: unknown,
  call: ResumedCall,
): Promise<CallToolResult> {
  const { options, release } = sdkCallOptions(call.timeoutMs, call.signal, call.onProgress);
  const request = { method: 'tools/call', params: { name: call.name, arguments: call.args } };
  // The flow the SDK's own request path builds for an input_required answer.
  const flow = {
    codec,
    request,
    options,
    flowStartedAt: call.startedAt,
    retry: (params: Record<string, unknown> | undefined, legOptions: typeof options) =>
      client.request(
        params === undefined
          ? { method: 'tools/call' as const }
          : ({ method: 'tools/call', params } as { method: 'tools/call'; params: never }),
        legOptions,
      ),
  };
  try {
    return await internals._resolveNonCompleteResult(pending, flow);
  } finally {
    release();
  }
}
