import { describe, expect, it } from 'vitest';
import type { CallPrincipal, ConfirmationDecision } from '../contract/tool.js';
import { ToolHints } from '../contract/tool-metadata.js';
import { successResult } from '../contract/tool-result.js';
import { RiskAwareToolGate } from '../policies/tool-execution-gate.js';
import { type RiskPolicy, ToolPermissionManager } from '../policies/tool-permission-manager.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { defineTestTool } from '../testing/test-tool.js';
import { ToolBatchRunner } from './batch-runner.js';
import { createToolExecutor } from './pipeline-tool-executor.js';
import type { SettledCall } from './settled-call.js';

const BOB: CallPrincipal = { id: 'bob', kind: 'token', scopes: [] };

function setUp(
  options: { answer?: ConfirmationDecision; medium?: RiskPolicy; confirm?: boolean } = {},
) {
  const settled: SettledCall[] = [];
  const registry = new ToolRegistry();
  const confirm =
    options.confirm === false ? undefined : async () => options.answer ?? 'allow_once';
  const permissions = new ToolPermissionManager({
    policy: { HIGH: 'deny', ...(options.medium ? { MEDIUM: options.medium } : {}) },
    ...(confirm ? { confirm } : {}),
  });
  const executor = createToolExecutor({
    registry,
    gate: new RiskAwareToolGate(permissions),
    ...(confirm ? { confirm } : {}),
    onSettled: (call) => settled.push(call),
  });
  registry.registerAll([
    defineTestTool({ id: 'low', execute: () => successResult('ran') }),
    defineTestTool({
      id: 'medium',
      metadata: { category: 'utility', risk: 'MEDIUM', annotations: ToolHints.destructive },
      execute: () => 'ran',
    }),
    defineTestTool({
      id: 'high',
      metadata: { category: 'utility', risk: 'HIGH', annotations: ToolHints.destructive },
      execute: () => 'ran',
    }),
    defineTestTool({
      id: 'asks_itself',
      metadata: {
        category: 'utility',
        risk: 'MEDIUM',
        annotations: ToolHints.destructive,
        gatesItself: true,
      },
      execute: async (_args, context) => {
        const answer = await context.confirm({
          toolId: 'asks_itself',
          action: 'do it',
          risk: 'MEDIUM',
        });
        return answer === 'deny' ? 'refused' : 'done';
      },
    }),
  ]);
  return { executor, settled, registry };
}

describe('onSettled', () => {
  it('reports a LOW call let through by policy as allowed, with its principal and risk', async () => {
    const { executor, settled } = setUp();
    await executor.execute('low', { secret: 'x' }, { principal: BOB, sessionId: 's1' });
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({
      toolId: 'low',
      sessionId: 's1',
      principal: BOB,
      risk: 'LOW',
      decision: 'allowed',
      result: { ok: true },
    });
    expect(settled[0]?.deniedBy).toBeUndefined();
  });

  it('reports a call the user allowed as asked-and-allowed', async () => {
    const { executor, settled } = setUp({ answer: 'allow_once' });
    await executor.execute('medium', {});
    expect(settled[0]).toMatchObject({ decision: 'asked-and-allowed', risk: 'MEDIUM' });
  });

  it('reports a call the user refused as denied by the user, and again later in the turn', async () => {
    const { executor, settled } = setUp({ answer: 'deny' });
    await executor.execute('medium', {});
    await executor.execute('medium', {});
    expect(settled.map((call) => [call.decision, call.deniedBy])).toEqual([
      ['denied', 'user'],
      ['denied', 'user'],
    ]);
  });

  it('reports a call the policy refuses as denied by policy', async () => {
    const { executor, settled } = setUp();
    const result = await executor.execute('high', {});
    expect(result.ok).toBe(false);
    expect(settled[0]).toMatchObject({ decision: 'denied', deniedBy: 'policy', risk: 'HIGH' });
  });

  it('reports a call nobody could confirm as denied, unanswered', async () => {
    const { executor, settled } = setUp({ confirm: false });
    await executor.execute('medium', {});
    expect(settled[0]).toMatchObject({ decision: 'denied', deniedBy: 'unanswered' });
  });

  it("records a self-gated tool's own questions", async () => {
    const allowed = setUp({ answer: 'allow_once' });
    await allowed.executor.execute('asks_itself', {});
    expect(allowed.settled[0]).toMatchObject({ decision: 'asked-and-allowed' });
    const refused = setUp({ answer: 'deny' });
    await refused.executor.execute('asks_itself', {});
    expect(refused.settled[0]).toMatchObject({ decision: 'denied', deniedBy: 'user' });
  });

  it('reports an unknown tool as not reached, once', async () => {
    const { executor, settled } = setUp();
    const result = await executor.execute('no_such_tool', {});
    expect(result.ok).toBe(false);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ toolId: 'no_such_tool', decision: 'not-reached' });
    expect(settled[0]?.risk).toBeUndefined();
  });

  it('reports each batch step as its own call, run as the batch principal', async () => {
    const { executor, settled } = setUp();
    const runner = new ToolBatchRunner({ executor });
    await runner.run(
      [
        { tool: 'low', args: {} },
        { tool: 'high', args: {} },
      ],
      { principal: BOB, sessionId: 's2' },
    );
    expect(settled.map((call) => [call.toolId, call.principal?.id, call.decision])).toEqual([
      ['low', 'bob', 'allowed'],
      ['high', 'bob', 'denied'],
    ]);
  });

  it('ignores an observer that throws', async () => {
    const registry = new ToolRegistry();
    registry.register(defineTestTool({ id: 'low', execute: () => 'ran' }));
    const executor = createToolExecutor({
      registry,
      onSettled: () => {
        throw new Error('disk full');
      },
    });
    expect(await executor.execute('low', {})).toMatchObject({ ok: true, content: 'ran' });
  });
});
