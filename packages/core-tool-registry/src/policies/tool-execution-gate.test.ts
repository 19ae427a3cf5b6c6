import { describe, expect, it } from 'vitest';
import type { ConfirmFunction } from '../contract/tool.js';
import { ToolHints } from '../contract/tool-metadata.js';
import { ToolSchema } from '../contract/tool-schema.js';
import { createToolExecutor } from '../pipeline/pipeline-tool-executor.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { defineTestTool } from '../testing/test-tool.js';
import { RiskAwareToolGate, summariseAction } from './tool-execution-gate.js';
import { ToolPermissionManager } from './tool-permission-manager.js';

describe('summariseAction', () => {
  it('shows the call but never credential values', () => {
    const action = summariseAction('http_request', {
      headers: { Authorization: 'Bearer abc123', Cookie: 'sid=42', Accept: 'json' },
      url: 'https://api.example.com',
      api_key: 'k-1',
    });
    expect(action).toEqual({
      ok: true,
      fields: 5,
      text: [
        'headers.Authorization: [redacted]',
        'headers.Cookie: [redacted]',
        'headers.Accept: "json"',
        'url: "https://api.example.com"',
        'api_key: [redacted]',
      ].join('\n'),
    });
  });

  it('shortens a long value to its head and tail with its length, keeping every field', () => {
    const action = summariseAction('write_file', {
      content: `${'a'.repeat(500)}${'z'.repeat(500)}`,
      path: '.githooks/pre-commit',
    });
    expect(action).toEqual({
      ok: true,
      fields: 2,
      text: `path: ".githooks/pre-commit"\ncontent: "${'a'.repeat(120)}"…"${'z'.repeat(60)}" (1000 characters)`,
    });
  });
});

describe('RiskAwareToolGate', () => {
  function setUp(
    policy: ConstructorParameters<typeof ToolPermissionManager>[0] = {},
    riskOf?: (rawArgs: unknown) => 'LOW' | 'MEDIUM' | 'HIGH',
  ) {
    const asked: string[] = [];
    const registry = new ToolRegistry();
    registry.register(
      defineTestTool({
        id: 'probe',
        description: 'Returns ok.',
        inputSchema: ToolSchema.fromRendered({ type: 'object' }),
        metadata: {
          category: 'utility',
          risk: riskOf ? 'LOW' : 'MEDIUM',
          annotations: ToolHints.mutating,
        },
        ...(riskOf ? { riskOf } : {}),
        execute: () => 'ok',
      }),
    );
    const permissions = new ToolPermissionManager({
      confirm: async (request) => {
        asked.push(`${request.risk}: ${request.action}`);
        return 'allow_once';
      },
      ...policy,
    });
    const executor = createToolExecutor({
      registry,
      gate: new RiskAwareToolGate(permissions),
    });
    return { asked, executor };
  }

  it('refuses without asking when the arguments cannot all be shown', async () => {
    const { asked, executor } = setUp();
    const many = Object.fromEntries(Array.from({ length: 257 }, (_, index) => [`k${index}`, 1]));
    const result = await executor.execute('probe', many);
    expect(asked).toEqual([]);
    expect(result.ok === false && result.error.code).toBe('PERMISSION_DENIED');
    expect(result.ok === false && result.error.message).toBe(
      "probe needs the user's confirmation, but its arguments cannot all be shown (the call has more than 256 argument fields), so the user was not asked.",
    );
  });

  it('applies the policy to the risk a tool declares for these arguments', async () => {
    const riskOf = (raw: unknown) =>
      (raw as { action?: unknown }).action === 'set' ? 'MEDIUM' : 'LOW';
    const denied = setUp({ policy: { MEDIUM: 'deny' } }, riskOf);
    const set = await denied.executor.execute('probe', { action: 'set' });
    expect(set.ok === false && set.error.message).toBe(
      'MEDIUM risk tools are disabled in this deployment.',
    );
    expect((await denied.executor.execute('probe', { action: 'get' })).ok).toBe(true);

    const asking = setUp({}, riskOf);
    expect((await asking.executor.execute('probe', { action: 'set' })).ok).toBe(true);
    expect((await asking.executor.execute('probe', { action: 'get' })).ok).toBe(true);
    expect(asking.asked).toEqual(['MEDIUM: action: "set"']);
  });

  it('never lowers the declared risk, and counts a throwing riskOf as HIGH', async () => {
    const lowered = setUp({ policy: { HIGH: 'deny' } }, () => {
      throw new Error('bad arguments');
    });
    const result = await lowered.executor.execute('probe', {});
    expect(result.ok === false && result.error.message).toBe(
      'HIGH risk tools are disabled in this deployment.',
    );
  });
});

describe('a tool that asks per action itself', () => {
  /** A self-gated tool that asks before each action, as shell_execute does per command. */
  function setUp(options: ConstructorParameters<typeof ToolPermissionManager>[0] = {}) {
    const asked: string[] = [];
    const registry = new ToolRegistry();
    registry.register(
      defineTestTool({
        id: 'run_step',
        metadata: {
          category: 'shell',
          risk: 'HIGH',
          annotations: ToolHints.destructive,
          gatesItself: true,
        },
        async execute(_args, context) {
          const answer = await context.confirm({ action: 'rm -rf build', risk: 'HIGH' });
          return answer === 'deny' ? 'refused' : `ran (${answer})`;
        },
      }),
    );
    const confirm = async (request: { action: string }) => {
      asked.push(request.action);
      return 'deny' as const;
    };
    const permissions = new ToolPermissionManager({ confirm, ...options });
    const executor = createToolExecutor({
      registry,
      gate: new RiskAwareToolGate(permissions),
      confirm,
    });
    const run = async () => {
      const result = await executor.execute('run_step', {});
      return result.ok ? result.content : result.error.code;
    };
    return { asked, permissions, run };
  }

  it('asks the person for each action by default', async () => {
    const { asked, run } = setUp();
    expect(await run()).toBe('refused');
    expect(asked).toEqual(['rm -rf build']);
  });

  it('runs each action unasked when the deployment allows the tool or its risk', async () => {
    for (const options of [
      { alwaysAllowed: ['run_step'] },
      { policy: { HIGH: 'allow' as const } },
    ]) {
      const { asked, run } = setUp(options);
      expect(await run()).toBe('ran (allow_once)');
      expect(asked).toEqual([]);
    }
  });

  it('never lets one person’s "always" answer cover every later action', async () => {
    const { asked, permissions, run } = setUp();
    permissions.record('default', 'run_step', 'allow_always');
    expect(await run()).toBe('refused');
    expect(asked).toEqual(['rm -rf build']);
  });

  it('refuses without asking when the deployment denies the risk', async () => {
    const { asked, run } = setUp({ policy: { HIGH: 'deny' }, alwaysAllowed: ['run_step'] });
    expect(await run()).toBe('PERMISSION_DENIED');
    expect(asked).toEqual([]);
  });
});

describe('one confirm for the whole pipeline', () => {
  /** A MEDIUM tool behind the risk gate, whose permission manager has no confirm of its own. */
  function saveNote(confirm?: ConfirmFunction) {
    const registry = new ToolRegistry();
    registry.register(
      defineTestTool({
        id: 'save_note',
        metadata: { category: 'file', risk: 'MEDIUM', annotations: ToolHints.mutating },
        execute: () => 'saved',
      }),
    );
    const executor = createToolExecutor({
      registry,
      gate: new RiskAwareToolGate(new ToolPermissionManager()),
      ...(confirm ? { confirm } : {}),
    });
    return executor.execute('save_note', {});
  }

  it('asks the executor’s confirm for a MEDIUM tool when the permission manager has none', async () => {
    const asked: string[] = [];
    const result = await saveNote(async (request) => {
      asked.push(`${request.toolId} (${request.risk})`);
      return 'allow_once';
    });
    expect(result.ok && result.content).toBe('saved');
    expect(asked).toEqual(['save_note (MEDIUM)']);
  });

  it('refuses with the library’s next step when no confirm exists anywhere', async () => {
    const result = await saveNote();
    expect(!result.ok && result.error.hint).toBe(
      'Do not retry; use a lower-risk tool. To let save_note run, the application passes a confirm function to the executor (so the user is asked) or allows it: alwaysAllowed: ["save_note"], or policy MEDIUM: "allow", on its ToolPermissionManager.',
    );
    expect(!result.ok && result.error.hint).not.toContain('toolsys.config.json');
  });
});
