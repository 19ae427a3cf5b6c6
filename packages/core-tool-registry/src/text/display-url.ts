/**
 * A URL as shown to people and models (status pages, `doctor`, listings, logs): scheme, host, port
 * and path only. The user-info (`user:password@`), the query (`?password=`, `?api_key=` …) and
 * the fragment are dropped, as any of them can carry a credential; what was dropped is marked
 * (`***@`, `?…`) so the reader knows the configured URL has more. Text that does not parse as a
 * URL is not shown at all.
 */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return '(unparsable url)';
  }
  const hadUserInfo = parsed.username !== '' || parsed.password !== '';
  const hadQuery = parsed.search !== '' || parsed.hash !== '';
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  let shown = parsed.href;
  // `http://host:4318` stays as configured, without the `/` a URL object adds.
  if (parsed.pathname === '/' && !/\/$/.test(url.trim().replace(/[?#].*$/, ''))) {
    shown = shown.slice(0, -1);
  }
  if (hadUserInfo) shown = shown.replace('//', '//***@');
  if (hadQuery) shown = `${shown}?…`;
  return shown;
}
