// The page of the dashboard's MCP section. Everything a server sent is set as text, never as
// markup.

/** The HTML of `GET /mcp-servers`. */
export const MCP_SERVERS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolsys · MCP servers</title>
<style>
body{font:14px system-ui,sans-serif;margin:2rem;max-width:70rem}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}
pre{background:#f6f6f6;padding:.5rem;overflow:auto;max-height:20rem}.held{color:#a00;font-weight:600}
</style></head><body>
<h1>MCP servers</h1><p><a href="./">Back to the dashboard</a></p>
<table><thead><tr><th>Server</th><th>Sign-in</th><th>Pinned tools</th></tr></thead><tbody id="rows"></tbody></table>
<p id="status"></p>
<script>
const rows = document.getElementById('rows');
const status = document.getElementById('status');
function cell(row, text, className) {
  const td = row.insertCell(); td.textContent = text; if (className) td.className = className; return td;
}
function signIn(server) {
  const s = server.signIn;
  if (!s) return 'local program (no sign-in)';
  if (s.state === 'signed-in') return 'signed in' + (s.expiresAt ? ', token expires ' + new Date(s.expiresAt).toISOString() : '');
  if (s.state === 'none') return 'no sign-in stored';
  return (s.state === 'expired' ? 'sign-in expired' : 'needs sign-in') + ' (or run ' + server.login + ' on the host)';
}
let csrf = '';
function post(path, body) {
  return fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...(csrf ? { 'x-toolsys-csrf': csrf } : {}) }, body: JSON.stringify(body) });
}
async function login(name) {
  status.textContent = 'Starting the sign-in to ' + name + '…';
  const answer = await post('api/mcp/login', { server: name });
  const body = await answer.json();
  if (!answer.ok) { status.textContent = body.error; return; }
  if (body.url) {
    const link = document.createElement('a');
    link.href = body.url; link.target = '_blank'; link.rel = 'noopener noreferrer';
    link.textContent = 'Open the sign-in page of ' + name;
    status.replaceChildren(link, document.createTextNode(' — its tools appear once you are signed in.'));
    window.open(body.url, '_blank', 'noopener');
  } else {
    status.textContent = body.signedIn ? 'Signed in to ' + name + '.' : name + ' needs no sign-in.';
  }
  setTimeout(load, 3000);
}
async function approve(name) {
  const answer = await post('api/mcp/approve', { server: name });
  const body = await answer.json();
  status.textContent = answer.ok ? 'Approved: ' + body.approved.join(', ') + ' (listed at the next listing)' : body.error;
  load();
}
async function load() {
  const answer = await fetch('api/mcp/servers');
  const body = await answer.json();
  csrf = body.csrf || '';
  rows.replaceChildren();
  for (const server of body.servers) {
    const row = rows.insertRow();
    cell(row, server.name + '\\n' + server.target);
    const sign = cell(row, signIn(server));
    if (server.signIn && server.signIn.state !== 'signed-in') {
      const button = document.createElement('button');
      button.textContent = 'Sign in';
      button.addEventListener('click', () => login(server.name));
      sign.append(' ', button);
    }
    const pins = cell(row, server.pinned ? server.approvedTools + ' approved' : 'not pinned');
    if (server.quarantined.length > 0) {
      const held = document.createElement('div');
      held.className = 'held';
      held.textContent = 'QUARANTINED: ' + server.quarantined.map((t) => t.name + ' (' + t.reason + ')').join(', ');
      pins.append(held);
      if (server.diff) { const pre = document.createElement('pre'); pre.textContent = server.diff; pins.append(pre); }
      if (body.operator) {
        const button = document.createElement('button');
        button.textContent = 'Approve';
        button.addEventListener('click', () => approve(server.name));
        pins.append(button);
      }
    }
  }
}
load();
</script></body></html>
`;
