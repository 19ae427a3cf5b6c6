import type { FetchLike } from '../bounded-fetch.js';
import { authRefused } from './oauth-errors.js';

const MAX_REDIRECTS = 3;

/**
 * A `fetch` for the requests of a sign-in (metadata, registration, token) that follows a redirect
 * only within the origin asked and for a GET; a redirect anywhere else fails the sign-in, so a
 * server cannot send the client's credentials or discovery to a host it was not configured with.
 */
export function withinOriginFetch(server: string, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    let current = new URL(String(url));
    const method = (init?.method ?? 'GET').toUpperCase();
    for (let followed = 0; ; followed += 1) {
      const response = await base(current, { ...init, redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || location === null) return response;
      await response.body?.cancel().catch(() => undefined);
      const target = new URL(location, current);
      if (target.origin !== current.origin || method !== 'GET' || followed >= MAX_REDIRECTS) {
        throw authRefused(
          server,
          `a sign-in request to ${current.origin} was redirected ${target.origin === current.origin ? 'too often' : `to another origin (${target.origin})`}`,
        );
      }
      current = target;
    }
  };
}
