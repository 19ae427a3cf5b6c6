import type { IncomingMessage } from 'node:http';
import { createTempDir, removeTempDir } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDashboardLogin } from './dashboard-mcp-login.js';

let dir: string;
beforeEach(async () => {
  dir = await createTempDir('dashboard-mcp-login-');
});
afterEach(async () => {
  await removeTempDir(dir);
});

const local = { kind: 'local', id: 'local', scopes: ['*'] } as const;
const from = (remoteAddress: string) => ({ socket: { remoteAddress } }) as IncomingMessage;
const remote = { name: 'remote', transport: 'http', url: 'http://127.0.0.1:9/mcp' } as const;

describe('a dashboard sign-in to an MCP server', () => {
  it('is refused to a browser that is not on the host (the redirect comes back to 127.0.0.1)', async () => {
    for (const address of ['203.0.113.5', '::ffff:10.0.0.2', '']) {
      const answer = await startDashboardLogin(from(address), remote as never, {
        dataDir: dir,
        principal: local,
      });
      expect(answer.status).toBe(409);
      expect(JSON.stringify(answer.body)).toContain('toolsys mcp login remote');
    }
  });

  it('is refused for a local program, which needs none', async () => {
    const answer = await startDashboardLogin(
      from('127.0.0.1'),
      { name: 'tool', transport: 'stdio', command: 'true' } as never,
      { dataDir: dir, principal: local },
    );
    expect(answer.status).toBe(400);
  });
});
