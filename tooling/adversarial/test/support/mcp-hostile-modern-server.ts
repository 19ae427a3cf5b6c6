import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A hostile 2026-07-28 MCP server written by hand (no SDK), so it can break the stateless
 * protocol as no SDK server would. `node script stdio` speaks line-delimited JSON-RPC on
 * stdin/stdout; `node script http` listens on 127.0.0.1 and a free port and writes
 * "TOOLSYS_LISTENING <port>" to stderr. What it does is chosen by `HOSTILE_MODE`:
 *
 * - `bad-discover`: answers `server/discover` with a result of the wrong shape, and refuses the
 *   2025 `initialize` handshake.
 * - `loop`: a valid server whose tool `ask` answers every call with `input_required` (no input
 *   requests, only a `requestState` that counts the rounds) and never completes.
 * - `grow`: as `loop`, but the `requestState` doubles every round, starting at 256 KiB.
 * - `many-requests`: `ask` answers `input_required` with 20 000 embedded elicitation requests.
 * - `wrong-content-type` (http only): `tools/call` is answered 200 with `text/html`.
 * - `header-mismatch` (http only): `tools/call` is answered 400 with the header-mismatch error
 *   (-32020), whatever headers came.
 * - `endless-stream` (http only): `tools/call` is answered with an event stream that sends a
 *   comment every 50 ms and never the answer.
 * - `direct` (stdio only): each tool breaks the result of `tools/call` its own way (see
 *   `DIRECT_TOOLS`): a wrong, missing or non-string `resultType`, a result that is no object or
 *   has invalid content, 4 MiB results (valid and invalid), `input_required` with nothing to ask,
 *   answers for ids it was never asked (`forge`), no answer at all (`slow`). `echo` answers
 *   properly. Every `tools/call` and `notifications/cancelled` is logged as
 *   `meta <method> <json id> <sorted _meta keys>`.
 *
 * Every request is logged to stderr as `recv <method> <json of the state it carried>`, and on
 * HTTP also as `headers <Mcp-Method> <Mcp-Name>`.
 */
const SCRIPT = String.raw`
import { createInterface } from 'node:readline';
import { createServer } from 'node:http';
const mode = process.env.HOSTILE_MODE ?? 'loop';
const log = (line) => process.stderr.write(line + '\n');
const meta = { 'io.modelcontextprotocol/serverInfo': { name: 'hostile-modern', version: '1.0.0' } };
const tool = { name: 'ask', description: 'Asks for input.', inputSchema: { type: 'object' } };
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
const text = (value) => ({ content: [{ type: 'text', text: value }] });
const MIB = 1024 * 1024;
const DIRECT_TOOLS = {
  echo: (params) => ({ ...text('echo ' + JSON.stringify(params.arguments ?? {})), resultType: 'complete' }),
  'wrong-type': () => ({ ...text('x'), resultType: 'partial' }),
  'no-type': () => text('x'),
  'number-type': () => ({ ...text('x'), resultType: 1 }),
  'not-object': () => [1, 2],
  'bad-content': () => ({ content: 'nope', resultType: 'complete' }),
  huge: () => ({ ...text('y'.repeat(4 * MIB)), resultType: 'complete' }),
  'huge-invalid': () => ({ content: [{ type: 'bogus', blob: 'z'.repeat(4 * MIB) }], resultType: 'complete' }),
  'ask-empty': () => ({ resultType: 'input_required' }),
  forge: (params, id) => {
    const next = typeof id === 'number' ? id + 1 : 'toolsys-' + (Number(String(id).replace(/\D+/g, '')) + 1);
    send({ id: next, result: { ...text('forged'), resultType: 'complete' } });
    send({ id: 'toolsys-999999', error: { code: -32000, message: 'forged error' } });
    send({ id: 987654, result: { ...text('forged'), resultType: 'complete' } });
    send({ method: 'notifications/progress', params: { progressToken: 'toolsys-999999', progress: 1 } });
    return { ...text('real'), resultType: 'complete' };
  },
  slow: () => undefined,
};

function answer(message) {
  const { id, method, params } = message;
  log('recv ' + method + ' ' + JSON.stringify(params?.requestState ?? null).slice(0, 80));
  if (method === 'server/discover') {
    if (mode === 'bad-discover') return { id, result: { supportedVersions: 42, capabilities: 'all of them', resultType: 'complete' } };
    return { id, result: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: meta } };
  }
  if (method === 'initialize') return { id, error: { code: -32601, message: 'initialize is gone' } };
  if (mode === 'direct' && (method === 'tools/call' || method === 'notifications/cancelled')) {
    log('meta ' + method + ' ' + JSON.stringify(id ?? params?.requestId) + ' ' + Object.keys(params?._meta ?? {}).sort().join(','));
  }
  if (method === 'tools/list') {
    const tools = mode === 'direct' ? Object.keys(DIRECT_TOOLS).map((name) => ({ ...tool, name })) : [tool];
    return { id, result: { tools, resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: meta } };
  }
  if (method === 'tools/call' && mode === 'direct') {
    const make = Object.hasOwn(DIRECT_TOOLS, params?.name) ? DIRECT_TOOLS[params.name] : undefined;
    if (!make) return { id, error: { code: -32602, message: 'Unknown tool' } };
    const result = make(params, id);
    return result === undefined ? undefined : { id, result };
  }
  if (method === 'tools/call') {
    const round = params?.requestState === undefined ? 0 : Number(String(params.requestState).split(':')[0]) + 1;
    if (mode === 'grow') {
      return { id, result: { resultType: 'input_required', requestState: round + ':' + 'x'.repeat(256 * 1024 * 2 ** round) } };
    }
    if (mode === 'many-requests') {
      const inputRequests = {};
      for (let n = 0; n < 20000; n++) {
        inputRequests['q' + n] = { method: 'elicitation/create', params: { mode: 'form', message: 'Q' + n, requestedSchema: { type: 'object', properties: {} } } };
      }
      return { id, result: { resultType: 'input_required', inputRequests, requestState: '0:' } };
    }
    return { id, result: { resultType: 'input_required', requestState: round + ':again' } };
  }
  if (id !== undefined) return { id, error: { code: -32601, message: 'Method not found' } };
  return undefined;
}

if (process.argv[2] === 'http') {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      if (req.method !== 'POST') { res.writeHead(405).end(); return; }
      let message;
      try { message = JSON.parse(body); } catch { res.writeHead(400).end(); return; }
      log('headers ' + req.headers['mcp-method'] + ' ' + req.headers['mcp-name']);
      if (message.method === 'tools/call' && mode === 'wrong-content-type') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>surprise</html>');
        return;
      }
      if (message.method === 'tools/call' && mode === 'header-mismatch') {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32020, message: 'Mcp-Name does not match the body' } }));
        return;
      }
      if (message.method === 'tools/call' && mode === 'endless-stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const timer = setInterval(() => res.write(': still here\n\n'), 50);
        res.on('close', () => { clearInterval(timer); log('stream closed'); });
        return;
      }
      const reply = answer(message);
      if (!reply) { res.writeHead(202).end(); return; }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', ...reply }));
    });
  });
  server.listen(0, '127.0.0.1', () => log('TOOLSYS_LISTENING ' + server.address().port));
} else {
  createInterface({ input: process.stdin }).on('line', (line) => {
    let message;
    try { message = JSON.parse(line); } catch { return; }
    const reply = answer(message);
    if (reply) send(reply);
  });
}
`;

/** Writes the hostile modern server script into `directory` and returns its path. */
export function writeHostileModernServer(directory: string): string {
  const path = join(directory, 'hostile-modern-mcp-server.mjs');
  writeFileSync(path, SCRIPT);
  return path;
}
