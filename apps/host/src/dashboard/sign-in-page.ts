/** Escapes text for HTML. */
function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (character) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character] ??
      character,
  );
}

/**
 * The dashboard's sign-in page: a named token form (posted to `/auth/token`) and, when the
 * deployment has an OAuth client for the dashboard, a link to sign in with the identity provider.
 */
export function signInPage(options: { withIssuer: boolean; problem?: string }): string {
  const problem =
    options.problem === undefined ? '' : `<p class="problem">${escapeHtml(options.problem)}</p>`;
  const issuer = options.withIssuer
    ? '<p><a id="sign-in-oauth" href="/auth/login">Sign in with your identity provider</a></p><p>or</p>'
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Toolsys dashboard: sign in</title>
<style>body{font:15px system-ui,sans-serif;max-width:28rem;margin:4rem auto}.problem{color:#b00}input{width:100%}</style>
</head>
<body>
<h1>Toolsys dashboard</h1>
${problem}${issuer}
<form id="sign-in-token" method="post" action="/auth/token">
  <label>Access token <input name="token" type="password" autocomplete="current-password" required></label>
  <p><button type="submit">Sign in with a token</button></p>
</form>
</body>
</html>
`;
}

/**
 * The page the identity provider's redirect lands on after a sign-in: it moves on to the dashboard
 * from this site, so that the SameSite=Strict sign-in cookie goes with the next request.
 */
export const SIGNED_IN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/">
<title>Signed in</title></head><body><p>Signed in. <a href="/">Open the dashboard</a>.</p></body></html>
`;
