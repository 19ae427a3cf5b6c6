// Drives an authorization request through oidc-provider's development login and consent pages
// with fetch, as a browser would: following redirects, keeping the issuer's cookies, submitting
// each form. Stops at the redirect back to the client.

/** The `Set-Cookie` name=value pairs of a response, into `jar`. */
function keepCookies(response: Response, jar: Map<string, string>): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const equals = pair.indexOf('=');
    if (equals > 0) jar.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim());
  }
}

function cookieHeaderOf(jar: Map<string, string>): string {
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
}

/**
 * Signs `login` in at the issuer, starting from the authorization URL the client redirected to,
 * and returns the URL the issuer sends the browser back to (the client's redirect URI with
 * `code` and `state`, or `error`).
 */
export async function signInAtIssuer(
  authorizationUrl: string,
  login: string,
  redirectUri: string,
): Promise<URL> {
  const jar = new Map<string, string>();
  let next = new URL(authorizationUrl);
  let form: URLSearchParams | undefined;
  for (let step = 0; step < 20; step += 1) {
    if (next.href.startsWith(redirectUri)) return next;
    const response = await fetch(next, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: cookieHeaderOf(jar),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: form } : {}),
    });
    keepCookies(response, jar);
    form = undefined;
    const location = response.headers.get('location');
    if (location) {
      next = new URL(location, next);
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`no form and no redirect at ${next.pathname}: ${response.status}`);
    form = new URLSearchParams();
    for (const [, name, value] of html.matchAll(
      /<input type="hidden" name="([^"]+)" value="([^"]*)"/g,
    )) {
      form.set(name ?? '', value ?? '');
    }
    if (html.includes('name="login"')) {
      form.set('login', login);
      form.set('password', 'any');
    }
    next = new URL(action.replaceAll('&amp;', '&'), next);
  }
  throw new Error('the issuer never redirected back');
}
