import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createToolExecutor,
  RiskAwareToolGate,
  RunPolicies,
  ToolPermissionManager,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStructuredTools } from './index.js';

const SPEC_IDS = [
  'regex_extract',
  'regex_replace',
  'text_diff',
  'json_path',
  'xml_extract',
  'csv_query',
  'base_convert',
  'unit_convert',
  'duration_convert',
  'string_distance',
  'random_generate',
  'uuid_generate',
  'file_hash',
  'datetime',
  'cron_next',
];

let root: string;
let registry: ToolRegistry;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolsys-structured-'));
  registry = new ToolRegistry();
  registry.registerAll(createStructuredTools({ workspaceRoot: root }), {
    owner: 'test',
    policy: 'REJECT',
  });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('createStructuredTools', () => {
  it('creates exactly the fifteen structured ids of the spec', () => {
    expect(registry.ids().sort()).toEqual([...SPEC_IDS].sort());
  });

  it('declares every tool as data, LOW risk, read-only, offline, quickRead', () => {
    for (const tool of registry.list()) {
      expect(tool.metadata, tool.id).toMatchObject({
        category: 'data',
        risk: 'LOW',
        annotations: {
          readOnlyHint: true,
          destructiveHint: false,
          openWorldHint: false,
          sensitiveAction: false,
        },
      });
      expect(tool.runPolicy, tool.id).toBe(RunPolicies.quickRead);
    }
  });

  it('declares random_generate and uuid_generate as not idempotent, the rest as idempotent', () => {
    for (const tool of registry.list()) {
      const random = tool.id === 'random_generate' || tool.id === 'uuid_generate';
      expect(tool.metadata.annotations.idempotentHint, tool.id).toBe(!random);
    }
  });

  it('describes every argument for the model', () => {
    for (const tool of registry.list()) {
      const properties = tool.inputSchema.jsonSchema.properties as Record<
        string,
        { description?: string }
      >;
      expect(Object.keys(properties).length, tool.id).toBeGreaterThan(0);
      for (const [name, property] of Object.entries(properties)) {
        expect(property.description, `${tool.id}.${name}`).toBeTruthy();
      }
      // A sentence that says what it does; every listed token is paid on every turn.
      expect(tool.description.length, tool.id).toBeGreaterThan(30);
      expect(tool.description.length, tool.id).toBeLessThan(200);
    }
  });

  it('declares an output schema for every tool', () => {
    for (const tool of registry.list()) expect(tool.outputSchema, tool.id).toBeDefined();
  });

  it('runs under the default risk policy without asking anyone', async () => {
    const asked: string[] = [];
    const executor = createToolExecutor({
      registry,
      gate: new RiskAwareToolGate(new ToolPermissionManager()),
      confirm: async (request) => {
        asked.push(request.toolId);
        return 'deny';
      },
    });
    const result = await executor.execute('base_convert', { value: '255', to: 16 });
    expect(result).toMatchObject({ ok: true, content: 'ff (base 16)' });
    expect(asked).toEqual([]);
  });

  it('is refused like any tool when the deployment denies LOW-risk calls', async () => {
    const executor = createToolExecutor({
      registry,
      gate: new RiskAwareToolGate(new ToolPermissionManager({ policy: { LOW: 'deny' } })),
    });
    const result = await executor.execute('uuid_generate', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
  });
});
