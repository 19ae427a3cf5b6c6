import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineTool, ToolHints, ToolSchema } from '@toolsys/core-tool-registry';
import type { Deployment } from '@toolsys/host';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { definePackageOf, deployHost, openStdioSession } from './support/host.js';

// Tools are listed under client-safe names beside their dotted ids. An alias must never reach
// another tool than the one it names, never pass a gate the id would not, and never make up a tool.

const CLIENT_SAFE = /^[a-zA-Z0-9_-]{1,64}$/;

let scratch: string;
const deployments: Deployment[] = [];
const ran: string[] = [];

/** A tool that records each run under its id. */
function probe(id: string, risk: 'LOW' | 'HIGH', description = 'Records that it ran.') {
  return defineTool({
    id,
    description,
    inputSchema: ToolSchema.empty(),
    metadata:
      risk === 'LOW'
        ? { category: 'utility', risk, annotations: ToolHints.readOnly }
        : { category: 'utility', risk, annotations: ToolHints.destructive },
    execute: () => {
      ran.push(id);
      return `ran ${id}`;
    },
  });
}

const probes = definePackageOf({
  name: '@toolsys/adversarial-names',
  key: 'names',
  description: 'ids whose safe names collide',
  tools: [
    // `probe.run` would be listed as `probe_run`, which is the id of another tool.
    probe('probe.run', 'LOW', 'Runs the probe. Compare probe_run and probe.run.danger.'),
    probe('probe_run', 'LOW'),
    // A HIGH tool reached through its alias must still ask.
    probe('probe.run.danger', 'HIGH'),
  ],
});

async function open(decision?: string) {
  const { deployment, host } = await deployHost(mkdtempSync(join(scratch, 'names-')), {
    packages: [probes],
  });
  deployments.push(deployment);
  const { server, session } = await openStdioSession(host, decision);
  const listed = (await session.request('tools/list')).result?.tools as Array<{
    name: string;
    description: string;
  }>;
  return { server, session, listed };
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-names-'));
});

afterEach(async () => {
  ran.length = 0;
  for (const deployment of deployments.splice(0)) await deployment.close();
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('client-safe names beside dotted ids', () => {
  it('never lets an alias shadow a tool whose id is spelled that way', async () => {
    const { server, session, listed } = await open();
    try {
      const names = listed.map((tool) => tool.name);
      for (const name of names) expect(name).toMatch(CLIENT_SAFE);
      expect(new Set(names).size).toBe(names.length);
      expect(names).toContain('probe_run');

      await session.callTool('probe_run', {});
      expect(ran).toEqual(['probe_run']);
      const dotted = names.find((name) => name !== 'probe_run' && name.startsWith('probe_run_'));
      expect(dotted).toBeDefined();
      await session.callTool(dotted as string, {});
      await session.callTool('probe.run', {});
      expect(ran).toEqual(['probe_run', 'probe.run', 'probe.run']);
    } finally {
      await server.close();
    }
  });

  it('names tools in descriptions as listed, without rewriting a longer id or the safe id', async () => {
    const { server, listed } = await open();
    try {
      const described = listed.find((tool) => tool.description.startsWith('Runs the probe'));
      const danger = listed.find(
        (tool) =>
          tool.description === 'Records that it ran.' && tool.name.startsWith('probe_run_danger'),
      );
      expect(danger).toBeDefined();
      expect(described?.description).toBe(`Runs the probe. Compare probe_run and ${danger?.name}.`);
    } finally {
      await server.close();
    }
  });

  it('gates a HIGH tool called by its alias exactly as by its id', async () => {
    for (const decision of [undefined, 'deny']) {
      const { server, session, listed } = await open(decision);
      try {
        const alias = listed.find((tool) => tool.name.startsWith('probe_run_danger'))?.name;
        expect(alias).toBeDefined();
        const byAlias = await session.callTool(alias as string, {});
        const byId = await session.callTool('probe.run.danger', {});
        expect(byAlias.isError).toBe(true);
        expect(byId.isError).toBe(true);
        // The same refusal, naming the tool by its id (a denial is even remembered across both).
        const code = (text: string) => /^Error: \[([A-Z_]+)\]/.exec(text)?.[1];
        expect(code(byAlias.text)).toBe('PERMISSION_DENIED');
        expect(code(byId.text)).toBe('PERMISSION_DENIED');
        expect(byAlias.text).toContain('probe.run.danger');
        expect(ran).toEqual([]);
      } finally {
        await server.close();
      }
    }
  });

  it('answers made-up and mangled names as unknown tools, running nothing', async () => {
    const { server, session } = await open();
    try {
      for (const name of [
        'probe_run\u0000',
        'PROBE_RUN',
        'probe-run',
        '../probe.run',
        ' probe_run',
        'probe_run_'.padEnd(300, 'x'),
        'constructor',
        '__proto__',
      ]) {
        const answer = await session.callTool(name, {});
        expect(answer.isError, name).toBe(true);
        expect(answer.text, name).toMatch(/Unknown tool|NOT_FOUND|INVALID/);
      }
      expect(ran).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
