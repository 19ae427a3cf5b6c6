import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Deployment, type HttpServer, scopedConfirm, serveHttp } from '@toolsys/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployHost } from './support/host.js';
import { riskProbePackage } from './support/risk-probe.js';

// Issue 33: the stateless 2026-07-28 leg of /mcp gets the same gates as sessions do (tokens,
// scopes) and refuses what does not add up (headers that contradict the body), and a hostile
// argument shape becomes a tool error, not a protocol failure.

const READER = 'modern-reader-secret-0123456789abcdef0';

let scratch: string;
let deployment: Deployment;
let server: HttpServer;

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'adversary', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function modernCall(
  name: string,
  options: { token?: string; header?: string; args?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': options.header ?? name,
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name, arguments: options.args ?? {}, _meta: ENVELOPE },
    }),
  });
  const text = await response.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  return { status: response.status, body: JSON.parse(json) as Record<string, unknown> };
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-modern-http-'));
  ({ deployment } = await deployHost(scratch, {
    packages: [riskProbePackage],
    confirm: scopedConfirm,
  }).then(async (deployed) => {
    server = await serveHttp(deployed.host, {
      host: '127.0.0.1',
      port: 0,
      tokens: [{ name: 'reader', token: READER, scopes: ['tools:read'] }],
    });
    return deployed;
  }));
}, 60_000);

afterAll(async () => {
  await server?.close();
  await deployment?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the 2026-07-28 leg of /mcp', { timeout: 60_000 }, () => {
  it('wants the bearer token as sessions do', async () => {
    const { status } = await modernCall('probe_low');
    expect(status).toBe(401);
  });

  it('refuses a call beyond the token scopes with 403 and the step-up challenge', async () => {
    const allowed = await modernCall('probe_low', { token: READER });
    expect(allowed.status).toBe(200);
    expect(JSON.stringify(allowed.body)).toContain('ran');
    const refused = await modernCall('probe_high', { token: READER });
    expect(refused.status).toBe(403);
    expect((refused.body.error as { data?: { requiredScope?: string } }).data?.requiredScope).toBe(
      'tools:admin',
    );
  });

  it('refuses a Mcp-Name header naming another tool than the body, running nothing', async () => {
    // A gateway routing or filtering on the header would see one tool while another runs.
    const { status, body } = await modernCall('probe_low', {
      token: READER,
      header: 'probe_high',
    });
    expect(status).toBe(400);
    expect(body.result).toBeUndefined();
    expect(body.error).toBeDefined();
  });

  it('answers arguments that are not an object with a tool error the model can act on', async () => {
    for (const args of [[1, 2], 'rm -rf /', 42]) {
      const { status, body } = await modernCall('probe_low', { token: READER, args });
      expect(status).toBe(200);
      const result = body.result as { isError?: boolean; content?: { text: string }[] };
      expect(result.isError).toBe(true);
      expect(result.content?.[0]?.text).toMatch(/^Error: \[INVALID_ARGUMENT\]/);
    }
  });
});
