// The resources a 2026-07-28 `subscriptions/listen` names (`resourceSubscriptions`), watched for
// its caller while the stream is open: over HTTP (modern-http) and over stdio (stdio-server).
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { OfferingError } from './offerings.js';
import type { Principal } from './principal.js';
import type { ToolHost } from './tool-host.js';

/** Resources one `subscriptions/listen` stream may watch at most. */
const MAX_LISTENED_RESOURCES = 100;

/**
 * For a `subscriptions/listen` naming `resourceSubscriptions`: subscribes to each resource for the
 * caller (so changes reach `onUpdated` while the stream is open), or, when the caller cannot read
 * one of them (or names too many), the JSON-RPC refusal to send instead. Anything else watches
 * nothing.
 */
export async function watchListenedResources(
  host: ToolHost,
  body: unknown,
  caller: { readonly principal: Principal; readonly sessionId: string },
  onUpdated: (uri: string) => void,
): Promise<{ stop: () => void } | { refusal: Record<string, unknown> }> {
  const message = body as {
    id?: unknown;
    method?: unknown;
    params?: { notifications?: { resourceSubscriptions?: unknown } };
  } | null;
  const uris = message?.params?.notifications?.resourceSubscriptions;
  if (message?.method !== 'subscriptions/listen' || !Array.isArray(uris) || uris.length === 0) {
    return { stop: () => {} };
  }
  const refuse = (text: string, data?: Record<string, unknown>) => ({
    refusal: {
      jsonrpc: '2.0',
      id: message.id ?? null,
      error: { code: ProtocolErrorCode.InvalidParams, message: text, ...(data ? { data } : {}) },
    },
  });
  if (uris.length > MAX_LISTENED_RESOURCES) {
    return refuse(`A listen stream may watch at most ${MAX_LISTENED_RESOURCES} resources.`);
  }
  const stops: Array<() => void> = [];
  const stop = () => {
    for (const each of stops.splice(0)) each();
  };
  for (const uri of uris) {
    try {
      if (typeof uri !== 'string') throw new OfferingError('not_found', 'not a URI');
      stops.push(await host.deployment.offerings.subscribe(uri, caller, onUpdated));
    } catch (error) {
      stop();
      if (!(error instanceof OfferingError)) throw error;
      return refuse(`Resource ${String(uri)} not found: it cannot be watched.`, { uri });
    }
  }
  return { stop };
}
