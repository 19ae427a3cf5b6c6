import { describe, expect, it } from 'vitest';
import type { CallPrincipal } from '../contract/tool.js';
import { ToolHints } from '../contract/tool-metadata.js';
import { successResult } from '../contract/tool-result.js';
import { RiskAwareToolGate } from '../policies/tool-execution-gate.js';
import { ToolPermissionManager } from '../policies/tool-permission-manager.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { defineTestTool } from '../testing/test-tool.js';
import { nestedCallOptions } from './execution-steps.js';
import { createToolExecutor } from './pipeline-tool-executor.js';
import { ToolTraceRecorder } from './trace-recorder.js';

const ALICE: CallPrincipal = {
  id: 'alice',
  kind: 'oauth',
  clientId: 'app',
  scopes: ['tools:read'],
};

function setUp() {
  const registry = new ToolRegistry();
  const traces = new ToolTraceRecorder();
  const executor = createToolExecutor({
    registry,
    traces,
    gate: new RiskAwareToolGate(new ToolPermissionManager({ policy: { HIGH: 'deny' } })),
  });
  registry.registerAll([
    defineTestTool({
      id: 'who',
      execute: (_args, context) => successResult(context.principal?.id ?? 'nobody'),
    }),
    defineTestTool({
      id: 'who_nested',
      execute: (_args, context) => executor.execute('who', {}, nestedCallOptions(context)),
    }),
    defineTestTool({
      id: 'dangerous',
      metadata: { category: 'utility', risk: 'HIGH', annotations: ToolHints.destructive },
      execute: () => 'ran',
    }),
  ]);
  return { executor, traces };
}

describe('the principal of a call', () => {
  it('reaches the handler through its context', async () => {
    const { executor } = setUp();
    const result = await executor.execute('who', {}, { principal: ALICE });
    expect(result).toMatchObject({ ok: true, content: 'alice' });
  });

  it('is absent when the caller gives none', async () => {
    const { executor } = setUp();
    const result = await executor.execute('who', {});
    expect(result).toMatchObject({ ok: true, content: 'nobody' });
  });

  it('carries over to the calls a tool makes on behalf of its own', async () => {
    const { executor } = setUp();
    const result = await executor.execute('who_nested', {}, { principal: ALICE });
    expect(result).toMatchObject({ ok: true, content: 'alice' });
  });

  it('is named on the spans of attempts and of refused calls', async () => {
    const { executor, traces } = setUp();
    await executor.execute('who', {}, { principal: ALICE });
    await executor.execute('dangerous', {}, { principal: ALICE });
    await executor.execute('who', {});
    const spans = traces.spans();
    expect(
      spans.map((span) => [span.toolId, span.outcome, span.principal, span.principalKind]),
    ).toEqual([
      ['who', 'ok', 'alice', 'oauth'],
      ['dangerous', 'PERMISSION_DENIED', 'alice', 'oauth'],
      ['who', 'ok', undefined, undefined],
    ]);
  });
});
