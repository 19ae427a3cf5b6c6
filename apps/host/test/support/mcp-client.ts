import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Progress, ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

/** The text of the first content block of a tool result; empty when there is none. */
export function contentText(result: unknown): string {
  const [first] = ((result as { content?: unknown }).content ?? []) as Array<{ text?: string }>;
  return first?.text ?? '';
}

/**
 * Records every progress update the server sends `client`, in order, without its token. The SDK
 * client dispatches notifications a microtask after reading them but settles the response at
 * once, so when both arrive in one read its `onprogress` can miss the last update: this observes
 * what the server sent on the wire instead.
 */
export function recordProgress(client: Client): Array<Omit<Progress, 'progressToken'>> {
  const sent: Array<Omit<Progress, 'progressToken'>> = [];
  client.setNotificationHandler(ProgressNotificationSchema, (notification) => {
    const { progressToken: _token, ...update } = notification.params;
    sent.push(update);
  });
  return sent;
}
