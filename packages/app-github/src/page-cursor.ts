import { createHash } from 'node:crypto';

/** A decoded pagination cursor: the page to fetch, bound to the query it continues. */
export interface PageCursor {
  /** 1-based page number. */
  readonly page: number;
  /** Fingerprint of the query the cursor belongs to. */
  readonly query: string;
}

/** A short fingerprint of the arguments that define a listing (everything but the cursor). */
export function fingerprintQuery(parts: Record<string, unknown>): string {
  const stable = Object.keys(parts)
    .sort()
    .map((key) => [key, parts[key]]);
  return createHash('sha256').update(JSON.stringify(stable)).digest('base64url').slice(0, 10);
}

/** Encodes a cursor the model passes back unchanged to get the next page. */
export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(`p${cursor.page}.${cursor.query}`, 'utf8').toString('base64url');
}

/**
 * Decodes a cursor for the query it must belong to; a string that is not one of ours, or that
 * belongs to other arguments, gives a sentence saying so.
 */
export function decodeCursor(text: string, query: string): PageCursor | { problem: string } {
  const decoded = Buffer.from(text, 'base64url').toString('utf8');
  const match = /^p(\d{1,6})\.([\w-]{10})$/.exec(decoded);
  if (!match) return { problem: 'is not a cursor returned by this tool' };
  if (match[2] !== query) {
    return {
      problem:
        'belongs to a listing with other arguments; pass the same arguments as the call that returned it',
    };
  }
  return { page: Number(match[1]), query };
}

/** The next page number from a GitHub `Link` header, if there is a next page. */
export function nextPageFromLink(link: unknown): number | undefined {
  if (typeof link !== 'string') return undefined;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
    if (!match?.[1]) continue;
    try {
      const page = Number(new URL(match[1], 'https://api.github.invalid').searchParams.get('page'));
      if (Number.isInteger(page) && page > 0) return page;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
