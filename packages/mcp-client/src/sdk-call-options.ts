import type { CallToolRequestOptions } from '@modelcontextprotocol/client';
import { isAttemptSignal } from '@toolsys/core-tool-registry';
import { progressUpdate } from './progress-emitter.js';
import { SignalRelay } from './signal-relay.js';

/** What a `tools/call` through the SDK client's request path is given (see {@link sdkCallOptions}). */
export interface SdkCallOptions {
  /** The SDK request options of the call. */
  readonly options: CallToolRequestOptions;
  /** Drops the call's hold on the caller's signal; call once the request has settled. */
  release(): void;
}

/**
 * The SDK request options of one `tools/call`: one time limit for the whole call (every round of
 * a multi-round-trip result gets what is left of it), the caller's signal, and progress only when
 * asked for (a progress token makes the server and the SDK do extra work).
 *
 * The SDK never removes its abort listener. A signal the executor made for this attempt alone is
 * dropped with it, so it goes to the SDK as is; any other (possibly long-lived) signal goes through
 * a relay that {@link SdkCallOptions.release} detaches.
 */
export function sdkCallOptions(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  onProgress:
    | ((progress: { progress: number; total?: number; message?: string }) => void)
    | undefined,
): SdkCallOptions {
  const options: CallToolRequestOptions = { timeout: timeoutMs, maxTotalTimeout: timeoutMs };
  let relay: SignalRelay | undefined;
  if (signal) {
    if (isAttemptSignal(signal)) {
      options.signal = signal;
    } else {
      relay = new SignalRelay(signal);
      options.signal = relay.signal;
    }
  }
  if (onProgress) {
    options.onprogress = (progress) => {
      const update = progressUpdate(progress);
      if (update) onProgress(update);
    };
  }
  return { options, release: () => relay?.release() };
}
