import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  defineTool,
  defineToolPackage,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import { type Deployment, type HttpServer, scopedConfirm, serveHttp } from '@toolsys/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployHost } from './support/host.js';
import { callMessage, openSession, post } from './support/mcp-http-calls.js';

// A tool whose id has a dot is listed under a safe name (`probe.dotted` as `probe_dotted`), and a
// call by either name runs it. A token holding only `tools:read` must be refused a HIGH tool
// whichever name it calls it by, directly or through `tool_call`.

const READER = 'reader-token-0123456789abcdef';
let scratch: string;
let deployment: Deployment;
let server: HttpServer;
let ran = 0;

const dottedPackage = defineToolPackage({
  name: '@toolsys/adversarial-dotted-probe',
  key: 'dotted',
  description: 'a HIGH tool with a dotted id',
  configSchema: corePackage.configSchema,
  detect: () => ({ enabled: true, reason: 'test' }),
  create: () => ({
    tools: [
      defineTool({
        id: 'probe.dotted',
        description: 'A HIGH tool that answers "ran".',
        inputSchema: ToolSchema.empty(),
        metadata: { category: 'utility', risk: 'HIGH', annotations: ToolHints.mutating },
        execute: () => {
          ran += 1;
          return successResult('ran');
        },
      }),
    ],
  }),
});

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-scope-names-'));
  const deployed = await deployHost(join(scratch, 'host'), {
    packages: [corePackage, dottedPackage],
    confirm: scopedConfirm,
  });
  deployment = deployed.deployment;
  server = await serveHttp(deployed.host, {
    host: '127.0.0.1',
    port: 0,
    tokens: [{ name: 'reader', token: READER, scopes: ['tools:read'] }],
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await deployment?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the scope check and listed names', () => {
  const cases = [
    ['its id', callMessage('probe.dotted')],
    ['its listed name', callMessage('probe_dotted')],
    ['tool_call and the listed name', callMessage('tool_call', { id: 'probe_dotted' })],
  ] as const;
  for (const [how, message] of cases) {
    it(`refuses a HIGH tool to a tools:read token called by ${how}`, async () => {
      const mcp = `${server.url}/mcp`;
      const session = await openSession(mcp, READER);
      const reply = await post(mcp, message, READER, session);
      expect(reply.status).toBe(403);
      expect(reply.headers.get('www-authenticate')).toContain('insufficient_scope');
      expect(reply.headers.get('www-authenticate')).toContain('tools:admin');
      expect(ran).toBe(0);
    });
  }
});
