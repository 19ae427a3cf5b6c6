/**
 * The dashboard: one self-contained page (no build step, no CDN). It reads `/api/overview`,
 * follows `/api/events` for live calls, and posts the call form to `/api/call`. A `?token=` in
 * the page URL is sent as the bearer token.
 */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Toolsys dashboard</title>
<style>
  :root { --fg:#1d2330; --muted:#667085; --line:#e4e7ec; --bg:#f8f9fb; --ok:#137333; --bad:#b42318; --accent:#3457d5; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
  header { padding:14px 24px; background:#fff; border-bottom:1px solid var(--line); display:flex; gap:16px; align-items:baseline; flex-wrap:wrap; }
  header h1 { font-size:18px; margin:0; }
  header .muted { color:var(--muted); }
  main { display:grid; grid-template-columns: minmax(0,3fr) minmax(0,2fr); gap:16px; padding:16px 24px; }
  section { background:#fff; border:1px solid var(--line); border-radius:8px; padding:12px 14px; min-width:0; }
  section h2 { font-size:15px; margin:0 0 8px; }
  section h3 { font-size:13px; margin:10px 0 4px; color:var(--muted); }
  .wide { grid-column: 1 / -1; }
  table { border-collapse:collapse; width:100%; }
  th, td { text-align:left; padding:4px 6px; border-bottom:1px solid var(--line); vertical-align:top; }
  th { font-weight:600; color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.02em; }
  td.num { text-align:right; font-variant-numeric:tabular-nums; }
  code { font:12px ui-monospace, SFMono-Regular, Menlo, monospace; }
  .risk-LOW { color:var(--ok); } .risk-MEDIUM { color:#b54708; } .risk-HIGH { color:var(--bad); font-weight:600; }
  .outcome-ok { color:var(--ok); } .outcome-err { color:var(--bad); }
  .filters { display:flex; gap:8px; margin-bottom:8px; flex-wrap:wrap; }
  select, textarea, input, button { font:inherit; }
  textarea { width:100%; min-height:90px; font:12px ui-monospace, monospace; }
  button { background:var(--accent); color:#fff; border:0; border-radius:6px; padding:6px 14px; cursor:pointer; }
  pre { white-space:pre-wrap; word-break:break-word; background:var(--bg); padding:8px; border-radius:6px; margin:8px 0 0; max-height:260px; overflow:auto; }
  .scroll { max-height:420px; overflow:auto; }
  .bar { display:flex; align-items:center; gap:6px; font-size:12px; }
  .bar span.label { width:80px; color:var(--muted); }
  .bar span.fill { background:var(--accent); height:10px; border-radius:3px; min-width:1px; }
  .hint { color:var(--muted); font-size:12px; }
</style>
</head>
<body>
<header>
  <h1>Toolsys</h1>
  <span class="muted" id="summary">loading…</span>
  <button type="button" id="sign-out" hidden>Sign out</button>
  <span class="muted">MCP endpoint: <code id="mcp-url"></code></span>
</header>
<main>
  <section>
    <h2>Tools</h2>
    <div class="filters">
      <label>Category <select id="category-filter"><option value="">all</option></select></label>
      <label>Risk <select id="risk-filter"><option value="">all</option><option>LOW</option><option>MEDIUM</option><option>HIGH</option></select></label>
      <input id="text-filter" placeholder="filter by id">
    </div>
    <div class="scroll">
      <table id="tools">
        <thead><tr><th>Tool</th><th>Category</th><th>Risk</th><th title="Attempts among the recent spans, which the latencies are computed from">Runs</th><th>Failures</th><th>p50 ms</th><th>p95 ms</th><th>Last error</th></tr></thead>
        <tbody></tbody>
      </table>
    </div>
  </section>
  <section>
    <h2>Call a tool</h2>
    <form id="call-form">
      <label>Tool <select id="call-tool"></select></label>
      <p class="hint" id="call-description"></p>
      <textarea id="call-args" spellcheck="false">{}</textarea>
      <p><button type="submit" id="call-submit">Call</button> <span class="hint">Runs through the full pipeline; a tool that needs your confirmation asks here.</span></p>
    </form>
    <div id="confirm-panel" hidden>
      <p><strong>Allow this?</strong> <span id="confirm-text"></span></p>
      <p><button type="button" id="confirm-allow">Allow once</button> <button type="button" id="confirm-deny">Deny</button></p>
    </div>
    <pre id="call-result"></pre>
  </section>
  <section>
    <h2>Live trace</h2>
    <p class="hint">One span per attempt; attempt 0 is a call refused before it ran.</p>
    <div class="scroll">
      <table id="traces">
        <thead><tr><th>Time</th><th>Tool</th><th>Attempt</th><th>Source</th><th>Outcome</th><th>ms</th></tr></thead>
        <tbody></tbody>
      </table>
    </div>
  </section>
  <section>
    <h2>Latency</h2>
    <div id="histogram"></div>
  </section>
  <section class="wide">
    <h2>Circuit breakers and rate limiters</h2>
    <div id="states" class="scroll"></div>
  </section>
</main>
<script>
(() => {
  const token = new URLSearchParams(location.search).get('token');
  const headers = token ? { authorization: 'Bearer ' + token } : {};
  const $ = (id) => document.getElementById(id);
  let overview = { tools: [], usage: [], latency: [], spans: [], calls: [], histogram: [], states: null, packages: [] };
  const spans = [];
  const sources = new Map();

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === 'class') node.className = value; else node.setAttribute(key, value);
    }
    for (const child of children) node.append(child instanceof Node ? child : String(child ?? ''));
    return node;
  }

  function renderTools() {
    const category = $('category-filter').value;
    const risk = $('risk-filter').value;
    const text = $('text-filter').value.trim().toLowerCase();
    const usage = new Map(overview.usage.map((u) => [u.toolId, u]));
    const latency = new Map(overview.latency.map((l) => [l.toolId, l]));
    const body = $('tools').tBodies[0];
    body.replaceChildren(...overview.tools
      .filter((t) => (!category || t.category === category) && (!risk || t.risk === risk) && (!text || t.id.includes(text)))
      .map((t) => {
        const u = usage.get(t.id);
        const l = latency.get(t.id);
        return el('tr', { 'data-tool': t.id },
          el('td', { title: t.description }, el('code', {}, t.id)),
          el('td', {}, t.category),
          el('td', { class: 'risk-' + t.risk }, t.risk),
          // Runs, failures and latencies all count the same recent spans (kept across restarts),
          // so that no tool shows 0 runs beside latencies.
          el('td', { class: 'num' }, l ? l.count : 0),
          el('td', { class: 'num' }, l ? l.failures : 0),
          el('td', { class: 'num' }, l ? l.p50Ms.toFixed(1) : ''),
          el('td', { class: 'num' }, l ? l.p95Ms.toFixed(1) : ''),
          el('td', {}, u && u.lastError ? u.lastError.code : ''));
      }));
  }

  function renderTraces() {
    const body = $('traces').tBodies[0];
    body.replaceChildren(...spans.slice().reverse().slice(0, 200).map((s) => el('tr', { 'data-call': s.callId },
      el('td', {}, new Date(s.startedAt).toLocaleTimeString()),
      el('td', {}, el('code', {}, s.toolId)),
      el('td', { class: 'num' }, s.attempt),
      el('td', {}, sources.get(s.callId) || 'other'),
      el('td', { class: s.outcome === 'ok' ? 'outcome-ok' : 'outcome-err' }, s.outcome),
      el('td', { class: 'num' }, s.durationMs.toFixed(1)))));
  }

  function renderHistogram() {
    const max = Math.max(1, ...overview.histogram.map((b) => b.count));
    $('histogram').replaceChildren(...overview.histogram.map((b) => el('div', { class: 'bar' },
      el('span', { class: 'label' }, b.label),
      el('span', { class: 'fill', style: 'width:' + Math.round((b.count / max) * 200) + 'px' }),
      el('span', {}, b.count))));
  }

  function table(headings, rows) {
    return el('table', {},
      el('thead', {}, el('tr', {}, ...headings.map((h) => el('th', {}, h)))),
      el('tbody', {}, ...rows.map((cells) => el('tr', {}, ...cells.map((c) => el('td', {}, c))))));
  }

  function renderStates() {
    const states = overview.states || { breakers: [], limiters: [] };
    const parts = [];
    parts.push(el('h3', {}, 'Circuit breakers'));
    parts.push(states.breakers.length === 0
      ? el('p', { class: 'hint' }, 'Every circuit is closed with no failures counted.')
      : table(['Tool', 'State', 'Consecutive failures', 'Cooldown ms', 'Probe in ms', 'Last error'],
          states.breakers.map((b) => [el('code', {}, b.toolId), b.state, b.consecutiveFailures, b.cooldownMs, Math.round(b.probeInMs), b.lastError ? b.lastError.code : ''])));
    parts.push(el('h3', {}, 'Rate limiters'));
    parts.push(states.limiters.length === 0
      ? el('p', { class: 'hint' }, 'No rate-limited tool has been called yet.')
      : table(['Tool', 'Per minute', 'Tokens left'],
          states.limiters.map((r) => [el('code', {}, r.toolId), r.ratePerMinute, r.tokens.toFixed(1)])));
    const scale = overview.scaleOut || { redis: { configured: false }, otlp: { configured: false } };
    parts.push(el('h3', {}, 'Replicas'));
    const redis = scale.redis;
    if (overview.replica) {
      parts.push(el('p', {}, 'Served by replica ', el('code', {}, overview.replica),
        Array.isArray(redis.liveReplicas)
          ? '; replicas alive at the last heartbeat: ' + redis.liveReplicas.join(', ')
            + (redis.operationTimeoutMs ? '; Redis bound ' + redis.operationTimeoutMs + ' ms per operation' : '')
          : ''));
    }
    parts.push(el('p', {}, 'Redis: ', !redis.configured
      ? 'not configured (this replica keeps its own state)'
      : redis.mode === 'shared'
        ? 'shared via ' + redis.url + ' since ' + new Date(redis.since).toLocaleString()
          + (!redis.subscriber ? ''
            : redis.subscriber.state === 'subscribed'
              ? '; grant revocations arrive over pub/sub'
              : '; grant revocations not subscribed since ' + new Date(redis.subscriber.since).toLocaleString() + ' (' + (redis.subscriber.lastError || 'connecting') + '): they take effect here within ' + Math.round((redis.grantMaxStalenessMs || 0) / 1000) + ' s')
        : 'fallen back to local state since ' + new Date(redis.since).toLocaleString() + ' (' + (redis.lastError || 'no answer') + ')'));
    const otlp = scale.otlp;
    parts.push(el('p', {}, 'OpenTelemetry: ', !otlp.configured
      ? 'not configured'
      : 'exporting to ' + otlp.endpoint + ' (' + otlp.exportedBatches + ' span batches sent, ' + otlp.failedExports + ' failed' + (otlp.lastError ? ': ' + otlp.lastError : '') + ')'));
    if (Array.isArray(overview.sharedSpans)) {
      parts.push(el('h3', {}, 'Recent spans of every replica'));
      parts.push(table(['Time', 'Replica', 'Tool', 'Attempt', 'Outcome', 'ms'],
        overview.sharedSpans.slice().reverse().slice(0, 100).map((s) => [new Date(s.startedAt).toLocaleTimeString(), s.replica || '', el('code', {}, s.toolId), s.attempt, s.outcome, s.durationMs.toFixed(1)])));
    }
    $('states').replaceChildren(...parts);
  }

  // A cookie sign-in's POSTs carry its CSRF value, which only this origin can read.
  function csrfHeader() {
    const csrf = overview.viewer && overview.viewer.csrf;
    return csrf ? { 'x-toolsys-csrf': csrf } : {};
  }

  function renderForm() {
    const select = $('call-tool');
    const current = select.value;
    select.replaceChildren(...overview.tools.map((t) => el('option', { value: t.id }, t.id)));
    if (current) select.value = current;
    describeSelected();
  }

  function describeSelected() {
    const tool = overview.tools.find((t) => t.id === $('call-tool').value);
    $('call-description').textContent = tool ? tool.risk + ' risk. ' + tool.description : '';
  }

  async function refresh() {
    const response = await fetch('api/overview', { headers });
    if (!response.ok) { $('summary').textContent = 'cannot load: HTTP ' + response.status; return; }
    const first = overview.tools.length === 0;
    overview = await response.json();
    for (const call of overview.calls) sources.set(call.callId, call.source);
    if (first) {
      spans.splice(0, spans.length, ...overview.spans);
      const categories = [...new Set(overview.tools.map((t) => t.category))].sort();
      $('category-filter').append(...categories.map((c) => el('option', {}, c)));
      renderForm();
    }
    const on = overview.packages.filter((p) => p.enabled).map((p) => p.key);
    const viewer = overview.viewer || {};
    // Only an operator may call tools from here (the server refuses anyone else).
    $('call-form').hidden = !viewer.isOperator;
    $('sign-out').hidden = !viewer.csrf;
    $('summary').textContent = overview.tools.length + ' tools · packages on: ' + (on.join(', ') || 'none')
      + ' · signed in as ' + viewer.principal + (viewer.isOperator ? ' (operator: every caller shown)' : ' (your calls shown)');
    renderTools(); renderTraces(); renderHistogram(); renderStates();
  }

  async function follow() {
    try {
      const response = await fetch('api/events', { headers });
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\\n\\n')) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = frame.split('\\n');
          const event = (lines.find((l) => l.startsWith('event: ')) || '').slice(7);
          const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\\n');
          if (!data) continue;
          const value = JSON.parse(data);
          if (event === 'span') {
            spans.push(value);
            if (spans.length > 300) spans.shift();
          } else if (event === 'call') {
            sources.set(value.callId, value.source);
          }
          renderTraces();
          scheduleRefresh();
        }
      }
    } catch {}
    setTimeout(follow, 2000);
  }

  let pending;
  function scheduleRefresh() {
    clearTimeout(pending);
    pending = setTimeout(refresh, 300);
  }

  $('category-filter').addEventListener('change', renderTools);
  $('risk-filter').addEventListener('change', renderTools);
  $('text-filter').addEventListener('input', renderTools);
  // Another tool takes other arguments: the previous tool's would be sent to it (issue 36).
  $('call-tool').addEventListener('change', () => {
    $('call-args').value = '{}';
    $('call-result').textContent = '';
    describeSelected();
  });
  $('call-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    let args;
    try { args = JSON.parse($('call-args').value || '{}'); }
    catch (error) { $('call-result').textContent = 'The arguments are not valid JSON: ' + error.message; return; }
    $('call-result').textContent = 'calling…';
    const response = await fetch('api/call', {
      method: 'POST',
      headers: { ...headers, ...csrfHeader(), 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify({ tool: $('call-tool').value, args }),
    });
    if (!(response.headers.get('content-type') || '').startsWith('application/x-ndjson')) {
      const body = await response.json();
      $('call-result').textContent = body.rendered ?? body.error;
      scheduleRefresh();
      return;
    }
    // Lines: questions for the person at the form, then the result.
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf('\\n')) !== -1) {
        const message = JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        if (message.type === 'confirm') ask(message.question);
        else if (message.type === 'result') $('call-result').textContent = message.rendered;
      }
    }
    $('confirm-panel').hidden = true;
    scheduleRefresh();
  });

  let question;
  function ask(asked) {
    question = asked;
    $('confirm-text').textContent = asked.risk + ' risk · ' + asked.toolId + ': ' + asked.action + (asked.reason ? ' (' + asked.reason + ')' : '');
    $('confirm-panel').hidden = false;
  }
  async function answer(decision) {
    if (!question) return;
    const id = question.id;
    question = undefined;
    $('confirm-panel').hidden = true;
    await fetch('api/confirm', {
      method: 'POST',
      headers: { ...headers, ...csrfHeader(), 'content-type': 'application/json' },
      body: JSON.stringify({ id, decision }),
    });
  }
  $('sign-out').addEventListener('click', async () => {
    await fetch('/auth/logout', { method: 'POST', headers: csrfHeader() });
    location.reload();
  });
  $('confirm-allow').addEventListener('click', () => answer('allow_once'));
  $('confirm-deny').addEventListener('click', () => answer('deny'));

  $('mcp-url').textContent = new URL('mcp', location.href).origin + '/mcp';
  refresh().then(follow);
  setInterval(refresh, 10000);
})();
</script>
</body>
</html>
`;
