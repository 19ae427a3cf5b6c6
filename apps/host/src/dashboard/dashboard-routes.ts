import type { IncomingMessage, ServerResponse } from 'node:http';
import { renderResult } from '@toolsys/core-tool-registry';
import { scrubSecretsDeep } from '@toolsys/core-tool-registry/text';
import type { ServedCall } from '../server/call-log.js';
import { type Principal, principalKey } from '../server/principal.js';
import { readJson } from '../server/read-json.js';
import type { ToolHost } from '../server/tool-host.js';
import { newSessionId } from '../session-policy.js';
import { DashboardQuestions } from './dashboard-confirm.js';
import { dashboardOverviewShared } from './dashboard-data.js';
import { handleMcpDashboardRequest } from './dashboard-mcp.js';
import { DASHBOARD_HTML } from './dashboard-page.js';
import { type DashboardViewer, seesCall, seesSpan } from './dashboard-viewer.js';

const NDJSON = 'application/x-ndjson';

/** The questions each host's call form is asking. */
const questionsByHost = new WeakMap<ToolHost, DashboardQuestions>();

function questionsOf(host: ToolHost): DashboardQuestions {
  let questions = questionsByHost.get(host);
  if (questions === undefined) {
    questions = new DashboardQuestions();
    questionsByHost.set(host, questions);
  }
  return questions;
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

/**
 * Serves the dashboard: the page at `/`, its data at `GET /api/overview`, live calls and trace
 * spans as server-sent events at `GET /api/events`, the call form at `POST /api/call` (its
 * questions answered at `POST /api/confirm`). The
 * viewer sees their own calls and spans only (an operator sees everyone's), and form calls run as
 * the viewer's principal.
 */
export async function handleDashboardRequest(
  host: ToolHost,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  viewer: DashboardViewer,
): Promise<void> {
  const route = `${request.method} ${url.pathname}`;
  switch (route) {
    case 'GET /':
      response.writeHead(200, {
        ...SECURITY_HEADERS,
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy':
          "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
        'x-frame-options': 'DENY',
      });
      response.end(DASHBOARD_HTML);
      return;
    case 'GET /api/overview':
      return sendJson(response, 200, await dashboardOverviewShared(host, viewer));
    case 'GET /api/events':
      return streamCalls(host, request, response, viewer);
    case 'POST /api/call':
      return callFromForm(host, request, response, viewer.principal);
    case 'POST /api/confirm':
      return answerQuestion(host, request, response, viewer.principal);
    default:
      if (await handleMcpDashboardRequest(host, request, response, url, viewer)) return;
      sendJson(response, 404, { error: `Nothing at ${url.pathname}. MCP is at /mcp.` });
  }
}

async function callFromForm(
  host: ToolHost,
  request: IncomingMessage,
  response: ServerResponse,
  principal: Principal,
): Promise<void> {
  if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
    return sendJson(response, 415, { error: 'Send the call as application/json.' });
  }
  const body = await readJson(request);
  if (!body.ok) return sendJson(response, body.status, { error: body.message });
  const { tool, args } = (body.value ?? {}) as { tool?: unknown; args?: unknown };
  if (typeof tool !== 'string' || tool === '') {
    return sendJson(response, 400, { error: 'Name the tool to call in "tool".' });
  }
  const controller = new AbortController();
  const onClose = () => {
    if (!response.writableFinished) controller.abort();
  };
  response.once('close', onClose);
  // The page reads the answer as lines, so that a question can come before the result: the
  // person at the form is asked there (POST /api/confirm answers).
  const asksThePage = (request.headers.accept ?? '').includes(NDJSON);
  const line = (value: unknown) => `${JSON.stringify(scrubSecretsDeep(value))}\n`;
  if (asksThePage) response.writeHead(200, { ...SECURITY_HEADERS, 'content-type': NDJSON });
  const confirm = asksThePage
    ? questionsOf(host).confirmFor(principalKey(principal), (question) =>
        response.write(line({ type: 'confirm', question })),
      )
    : undefined;
  // Each form call is a session of its own, ended with it: nothing it opened is left for another.
  const sessionId = newSessionId('dashboard');
  const result = await host.call(tool, args ?? {}, {
    source: 'dashboard',
    sessionId,
    principal,
    signal: controller.signal,
    ...(confirm ? { confirm } : {}),
  });
  await host.deployment.endSession(sessionId);
  response.off('close', onClose);
  if (asksThePage) {
    response.end(line({ type: 'result', result, rendered: renderResult(result) }));
    return;
  }
  sendJson(response, 200, { result, rendered: renderResult(result) });
}

/** Answers a question the call form asked (`{ id, decision: "allow_once" | "deny" }`). */
async function answerQuestion(
  host: ToolHost,
  request: IncomingMessage,
  response: ServerResponse,
  principal: Principal,
): Promise<void> {
  const body = await readJson(request);
  if (!body.ok) return sendJson(response, body.status, { error: body.message });
  const { id, decision } = (body.value ?? {}) as { id?: unknown; decision?: unknown };
  if (typeof id !== 'string' || (decision !== 'allow_once' && decision !== 'deny')) {
    return sendJson(response, 400, {
      error: 'Send { "id": "<question id>", "decision": "allow_once" | "deny" }.',
    });
  }
  if (!questionsOf(host).answer(id, principalKey(principal), decision)) {
    return sendJson(response, 404, { error: 'No such question is waiting for you.' });
  }
  sendJson(response, 200, { answered: decision });
}

function streamCalls(
  host: ToolHost,
  request: IncomingMessage,
  response: ServerResponse,
  viewer: DashboardViewer,
): void {
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/event-stream',
    connection: 'keep-alive',
  });
  response.write(': live calls and trace spans\n\n');
  const send = (event: string, value: unknown) => {
    response.write(`event: ${event}\ndata: ${JSON.stringify(scrubSecretsDeep(value))}\n\n`);
  };
  const unsubscribeCalls = host.calls.subscribe((call: ServedCall) => {
    if (seesCall(viewer, call)) send('call', call);
  });
  const unsubscribeSpans = host.deployment.stack.traces.onSpan((span) => {
    if (seesSpan(viewer, span)) send('span', span);
  });
  const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), 15_000);
  keepAlive.unref();
  request.once('close', () => {
    clearInterval(keepAlive);
    unsubscribeCalls();
    unsubscribeSpans();
  });
}

/**
 * Sends JSON to the dashboard. Everything it shows (recent calls, spans of every replica, breaker
 * and usage errors, a form call's result) passes the one secret scrubber first.
 */
function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json' });
  response.end(JSON.stringify(scrubSecretsDeep(value)));
}
