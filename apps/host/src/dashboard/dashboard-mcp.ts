// The dashboard's MCP section: the configured remote servers, where the viewer's sign-in to each
// stands, and the tools a pinned server holds back, with an approve action for operators. Its
// routes are `GET /mcp-servers` (the page), `GET /api/mcp/servers`, `POST /api/mcp/login` (the
// viewer's own sign-in) and `POST /api/mcp/approve`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  loginCommand,
  pinsDirectory,
  quarantineDiff,
  remoteServerStatuses,
  ToolPins,
} from '@toolsys/mcp-client';
import { mcpServersOfConfig } from '../commands/mcp-servers.js';
import { principalKey } from '../server/principal.js';
import { readJson } from '../server/read-json.js';
import type { ToolHost } from '../server/tool-host.js';
import { startDashboardLogin } from './dashboard-mcp-login.js';
import { MCP_SERVERS_HTML } from './dashboard-mcp-page.js';
import type { DashboardViewer } from './dashboard-viewer.js';

const HEADERS = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };

/**
 * Answers the MCP section's routes; false for any other route (the dashboard goes on). Tokens
 * never appear: only whether one is stored and when it expires.
 */
export async function handleMcpDashboardRequest(
  host: ToolHost,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  viewer: DashboardViewer,
): Promise<boolean> {
  const route = `${request.method} ${url.pathname}`;
  if (route === 'GET /mcp-servers') {
    response.writeHead(200, {
      ...HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy':
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
      'x-frame-options': 'DENY',
    });
    response.end(MCP_SERVERS_HTML);
    return true;
  }
  if (route === 'GET /api/mcp/servers') {
    const { servers, dataDir } = await mcpServersOfConfig(host.deployment.config);
    const statuses = await remoteServerStatuses(servers, dataDir, principalKey(viewer.principal));
    const pins = new ToolPins(pinsDirectory(dataDir));
    send(response, 200, {
      operator: viewer.isOperator,
      ...(viewer.csrf ? { csrf: viewer.csrf } : {}),
      servers: await Promise.all(
        statuses.map(async (status) => ({
          ...status,
          login: loginCommand(status.name),
          ...(viewer.isOperator && status.quarantined.length > 0
            ? { diff: quarantineDiff(status.name, await pins.file(status.name).load()) }
            : {}),
        })),
      ),
    });
    return true;
  }
  if (route === 'POST /api/mcp/login') {
    await login(host, request, response, viewer);
    return true;
  }
  if (route === 'POST /api/mcp/approve') {
    await approve(host, request, response, viewer);
    return true;
  }
  return false;
}

async function approve(
  host: ToolHost,
  request: IncomingMessage,
  response: ServerResponse,
  viewer: DashboardViewer,
): Promise<void> {
  if (!viewer.isOperator) {
    return send(response, 403, { error: 'Only an operator approves the tools of a server.' });
  }
  if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
    return send(response, 415, { error: 'Send { "server": "<name>" } as application/json.' });
  }
  const body = await readJson(request);
  if (!body.ok) return send(response, body.status, { error: body.message });
  const { server, tool } = (body.value ?? {}) as { server?: unknown; tool?: unknown };
  if (typeof server !== 'string' || (tool !== undefined && typeof tool !== 'string')) {
    return send(response, 400, { error: 'Send { "server": "<name>", "tool"?: "<name>" }.' });
  }
  const { servers, dataDir } = await mcpServersOfConfig(host.deployment.config);
  if (!servers.some((candidate) => candidate.name === server)) {
    return send(response, 404, { error: `No configured MCP server named "${server}".` });
  }
  const approved = await new ToolPins(pinsDirectory(dataDir)).approve(
    server,
    tool === undefined ? undefined : [tool],
  );
  send(response, 200, { server, approved });
}

async function login(
  host: ToolHost,
  request: IncomingMessage,
  response: ServerResponse,
  viewer: DashboardViewer,
): Promise<void> {
  const name = await serverNameOf(request, response);
  if (name === undefined) return;
  const { servers, dataDir } = await mcpServersOfConfig(host.deployment.config);
  const server = servers.find((candidate) => candidate.name === name);
  if (!server) return send(response, 404, { error: `No configured MCP server named "${name}".` });
  const answer = await startDashboardLogin(request, server, {
    dataDir,
    principal: viewer.principal,
  });
  send(response, answer.status, answer.body);
}

/** The `server` of a JSON body, or undefined once a refusal is sent. */
async function serverNameOf(
  request: IncomingMessage,
  response: ServerResponse,
): Promise<string | undefined> {
  if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
    send(response, 415, { error: 'Send { "server": "<name>" } as application/json.' });
    return undefined;
  }
  const body = await readJson(request);
  if (!body.ok) {
    send(response, body.status, { error: body.message });
    return undefined;
  }
  const { server } = (body.value ?? {}) as { server?: unknown };
  if (typeof server !== 'string') {
    send(response, 400, { error: 'Send { "server": "<name>" }.' });
    return undefined;
  }
  return server;
}

function send(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { ...HEADERS, 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}
