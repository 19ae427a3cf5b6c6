import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  defineTool,
  defineToolPackage,
  successResult,
  ToolHints,
  type ToolPackageStatus,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveDeploymentConfig } from '../src/config.js';
import { composeDeployment } from '../src/deployment.js';
import { createMcpServer } from '../src/server/mcp-server.js';
import { ToolHost } from '../src/server/tool-host.js';

let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-late-'));
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** A package whose probe answers when `answer` is called (or never). */
function probedPackage(key: string, toolId: string) {
  let answer: (status: ToolPackageStatus) => void = () => {};
  const probe = new Promise<ToolPackageStatus>((resolve) => {
    answer = resolve;
  });
  let disposed = 0;
  const entry = defineToolPackage({
    name: `@test/${key}`,
    key,
    description: 'a package with a probe the test controls',
    configSchema: z.object({}).strict(),
    detect: () => probe,
    create: () => ({
      tools: [
        defineTool({
          id: toolId,
          description: 'Says ok.',
          inputSchema: ToolSchema.empty(),
          metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
          execute: () => successResult('ok'),
        }),
      ],
      dispose: () => {
        disposed += 1;
      },
    }),
  });
  return { entry, answer: (status: ToolPackageStatus) => answer(status), disposed: () => disposed };
}

const quick = defineToolPackage({
  name: '@test/quick',
  key: 'quick',
  description: 'answers its probe at once',
  configSchema: z.object({}).strict(),
  detect: () => ({ enabled: true, reason: 'always there' }),
  create: () => ({
    tools: [
      defineTool({
        id: 'quick_tool',
        description: 'Says ok.',
        inputSchema: ToolSchema.empty(),
        metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
        execute: () => successResult('ok'),
      }),
    ],
  }),
});

function config() {
  return resolveDeploymentConfig({ dataDir: join(scratch, 'data') }, { cwd: scratch, env: {} });
}

describe('packages whose probe is slow', () => {
  it('are registered when the probe answers, announced with tools/list_changed', async () => {
    const slow = probedPackage('slow', 'slow_tool');
    const deployment = await composeDeployment(config(), {
      packages: [quick, slow.entry],
      detectionBoundMs: 50,
    });
    const { server, dispose } = createMcpServer(new ToolHost(deployment));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'late-test', version: '1.0.0' });
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    await client.connect(clientSide);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['quick_tool']);
      expect(deployment.statuses.get('slow')).toMatchObject({
        enabled: false,
        reason: expect.stringMatching(/^still detecting/),
      });
      slow.answer({ enabled: true, reason: 'found late' });
      await changed;
      await deployment.settled;
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
        'quick_tool',
        'slow_tool',
      ]);
      expect(deployment.statuses.get('slow')).toEqual({
        name: '@test/slow',
        enabled: true,
        reason: 'found late',
        tools: 1,
      });
    } finally {
      await client.close();
      dispose();
      await deployment.close();
    }
    expect(slow.disposed()).toBe(1);
  });

  it('stay off when the late answer is "not found", and registers nothing', async () => {
    const slow = probedPackage('slow', 'slow_tool');
    const deployment = await composeDeployment(config(), {
      packages: [quick, slow.entry],
      detectionBoundMs: 20,
    });
    slow.answer({ enabled: false, reason: 'no device' });
    await deployment.settled;
    expect(deployment.registry.has('slow_tool')).toBe(false);
    expect(deployment.statuses.get('slow')).toMatchObject({ enabled: false, reason: 'no device' });
    await deployment.close();
  });

  it('do not keep the host from closing when a probe never answers', async () => {
    const stuck = probedPackage('stuck', 'stuck_tool');
    const deployment = await composeDeployment(config(), {
      packages: [quick, stuck.entry],
      detectionBoundMs: 20,
    });
    expect(deployment.registry.has('quick_tool')).toBe(true);
    await deployment.close();
    // Answering after the close starts nothing that stays: the package is disposed at once.
    stuck.answer({ enabled: true, reason: 'too late' });
    await deployment.settled;
    expect(deployment.registry.has('stuck_tool')).toBe(false);
    expect(stuck.disposed()).toBe(0);
  });

  it('keep a late package off when its tool id clashes with a registered one', async () => {
    const clash = probedPackage('clash', 'quick_tool');
    const deployment = await composeDeployment(config(), {
      packages: [quick, clash.entry],
      detectionBoundMs: 20,
    });
    clash.answer({ enabled: true, reason: 'found' });
    await deployment.settled;
    expect(deployment.statuses.get('clash')).toMatchObject({
      enabled: false,
      reason: expect.stringMatching(/^failed to register: /),
    });
    expect(clash.disposed()).toBe(1);
    await deployment.close();
  });

  it('waits for every probe without a bound', async () => {
    const slow = probedPackage('slow', 'slow_tool');
    setTimeout(() => slow.answer({ enabled: true, reason: 'found' }), 50);
    const deployment = await composeDeployment(config(), { packages: [quick, slow.entry] });
    expect(deployment.registry.has('slow_tool')).toBe(true);
    await deployment.close();
  });
});
