// What the diagnostic tools share: their metadata and how requests are shown.
import { ToolHints } from '@toolsys/core-tool-registry';
import type { NetworkEntry } from '../../browser-session.js';
import { cleanPageLine, scrubSecrets } from '../../page-text.js';

/** Metadata of the diagnostic tools: low risk, read-only. */
export const READ_METADATA = {
  category: 'browser',
  risk: 'LOW',
  tags: ['browser', 'diagnostics'],
  annotations: ToolHints.readOnly,
} as const;

/** A URL as shown in logs: no credentials, query values longer than 40 characters shortened. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw.slice(0, 300);
  }
  url.username = '';
  url.password = '';
  for (const [key, value] of [...url.searchParams]) {
    if (/token|key|secret|password|auth|session|sig/i.test(key))
      url.searchParams.set(key, '[redacted]');
    else if (value.length > 40) url.searchParams.set(key, `${value.slice(0, 20)}…`);
  }
  const text = url.href;
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** A request's URL as shown: secrets replaced first (before any shortening), then {@link redactUrl}. */
export function shownUrl(url: string, secrets: readonly string[]): string {
  return cleanPageLine(redactUrl(scrubSecrets(url, secrets)), [], 400);
}

/** One line of the network log: method, URL, status, type, size, time and tab. */
export function formatRequest(entry: NetworkEntry, secrets: readonly string[]): string {
  const status =
    entry.failure !== undefined
      ? `FAILED ${entry.failure}`
      : entry.status !== undefined
        ? String(entry.status)
        : 'pending';
  const size = entry.size !== undefined ? ` ${entry.size.toLocaleString('en-US')} B` : '';
  const time = entry.durationMs !== undefined ? ` ${entry.durationMs} ms` : '';
  return `#${entry.id} ${cleanPageLine(entry.method, [], 20)} ${shownUrl(entry.url, secrets)} → ${cleanPageLine(status, [], 200)} [${entry.resourceType}]${size}${time} (${entry.tab})`;
}

/** Whether a request failed or answered with an error status. */
export function isFailed(entry: NetworkEntry): boolean {
  return entry.failure !== undefined || (entry.status !== undefined && entry.status >= 400);
}
