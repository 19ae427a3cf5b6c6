import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PipelineToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { createTestExecutor } from '@toolsys/core-tool-registry/testing';
import { createMcpTools, type McpManager, type McpStdioServerConfig } from '@toolsys/mcp-client';

/**
 * A hostile MCP server speaking line-delimited JSON-RPC on stdio, written by hand (no SDK) so it
 * can do what no well-behaved server does. What it does is chosen by environment variables:
 *
 * - `HOSTILE_PROGRESS` (a number): `tools/call` of `flood` sends that many
 *   `notifications/progress` for the call's token, then never answers.
 * - `HOSTILE_PAGES=endless`: every `tools/list` answers an empty page with a fresh next cursor;
 *   `HOSTILE_PAGES=repeat`: an empty page whose next cursor is always the same.
 * - `HOSTILE_LIST_CHANGED` (a number): after `notifications/initialized`, that many
 *   `notifications/tools/list_changed`, one every millisecond.
 * - `HOSTILE_TOOLS` (JSON): the tool catalog, replacing the default one (`flood`, `echo`).
 * - `HOSTILE_TEXT` (JSON string): what `echo` answers, replacing its `text` argument.
 * - `HOSTILE_STRUCTURED` (JSON): the `structuredContent` `echo` answers with its text.
 * - `HOSTILE_STRUCTURED_SIZE` (a number): `echo` also answers `structuredContent` holding a string
 *   of that many characters, and an image block of that many base64 characters.
 *
 * Every request is logged to stderr as `recv <method>`.
 */
const SCRIPT = String.raw`
import { createInterface } from 'node:readline';
const env = process.env;
const tools = env.HOSTILE_TOOLS ? JSON.parse(env.HOSTILE_TOOLS) : [
  { name: 'flood', description: 'Floods progress.', inputSchema: { type: 'object' } },
  { name: 'echo', description: 'Echoes.', inputSchema: { type: 'object' } },
];
let cursor = 0;
const out = [];
let flushing = false;
function send(message) {
  out.push(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  if (!flushing) flush();
}
function flush() {
  flushing = true;
  while (out.length > 0) {
    const chunk = out.splice(0, 1000).join('');
    if (!process.stdout.write(chunk)) {
      process.stdout.once('drain', flush);
      return;
    }
  }
  flushing = false;
}
createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try { message = JSON.parse(line); } catch { return; }
  if (message.method) process.stderr.write('recv ' + message.method + '\n');
  const { id, method, params } = message;
  if (method === 'initialize') {
    return send({ id, result: {
      protocolVersion: params.protocolVersion,
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: env.HOSTILE_NAME ?? 'hostile', version: '1.0.0' },
    } });
  }
  if (method === 'notifications/initialized') {
    const storms = Number(env.HOSTILE_LIST_CHANGED ?? 0);
    let sent = 0;
    const timer = setInterval(() => {
      if (sent++ >= storms) return clearInterval(timer);
      send({ method: 'notifications/tools/list_changed' });
    }, 1);
    return;
  }
  if (method === 'ping') return send({ id, result: {} });
  if (method === 'tools/list') {
    if (env.HOSTILE_PAGES === 'endless') {
      cursor += 1;
      return send({ id, result: { tools: [], nextCursor: 'page-' + cursor } });
    }
    if (env.HOSTILE_PAGES === 'repeat') return send({ id, result: { tools: [], nextCursor: 'again' } });
    return send({ id, result: { tools } });
  }
  if (method === 'tools/call') {
    if (params.name === 'flood') {
      const token = params._meta?.progressToken;
      const count = Number(env.HOSTILE_PROGRESS ?? 0);
      for (let index = 1; index <= count; index++) {
        send({ method: 'notifications/progress', params: { progressToken: token, progress: index, total: count, message: 'step ' + index } });
      }
      return;
    }
    const text = env.HOSTILE_TEXT ? JSON.parse(env.HOSTILE_TEXT) : String(params.arguments?.text ?? '');
    const size = Number(env.HOSTILE_STRUCTURED_SIZE ?? 0);
    if (size > 0) {
      return send({ id, result: {
        content: [{ type: 'text', text }, { type: 'image', mimeType: 'image/png', data: 'A'.repeat(size) }],
        structuredContent: { blob: 'x'.repeat(size), rows: Array.from({ length: 1000 }, (_, n) => ({ n })) },
      } });
    }
    const structured = env.HOSTILE_STRUCTURED ? { structuredContent: JSON.parse(env.HOSTILE_STRUCTURED) } : {};
    return send({ id, result: { content: [{ type: 'text', text }], ...structured } });
  }
  if (id !== undefined) send({ id, error: { code: -32601, message: 'Method not found' } });
});
`;

/** Writes the hostile server script into `directory` and returns its path. */
export function writeHostileServer(directory: string): string {
  const path = join(directory, 'hostile-mcp-server.mjs');
  writeFileSync(path, SCRIPT);
  return path;
}

/** The config of the hostile server `script` run over stdio with `env`, named `name`. */
export function hostileServer(
  script: string,
  env: Record<string, string>,
  name = 'hostile',
): McpStdioServerConfig {
  return { name, transport: 'stdio', command: process.execPath, args: [script], env };
}

/**
 * The MCP client tools (`mcp_call` …) over `manager` in a test executor, servers not configured
 * refused; `registry` holds them.
 */
export function mcpClientExecutor(manager: McpManager): {
  registry: ToolRegistry;
  executor: PipelineToolExecutor;
} {
  const executor = createTestExecutor({ tools: createMcpTools({ manager, adHoc: 'deny' }) });
  return { registry: executor.registry, executor };
}
