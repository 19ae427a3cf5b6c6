import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../contract/tool.js';
import { ToolSchema } from '../contract/tool-schema.js';
import { RiskAwareToolGate } from '../policies/tool-execution-gate.js';
import { ToolPermissionManager } from '../policies/tool-permission-manager.js';
import { createTestExecutor, failureError, successText } from './test-executor.js';
import { TEST_TOOL_METADATA } from './test-tool.js';

const echo = defineTool({
  id: 'echo',
  description: 'Echoes its text.',
  inputSchema: ToolSchema.object({ text: z.string().describe('Text.') }),
  metadata: TEST_TOOL_METADATA,
  execute: ({ text }) => text,
});

describe('createTestExecutor', () => {
  it('runs the given tools through the pipeline and reads the text', async () => {
    const executor = createTestExecutor({ tools: [echo] });
    expect(successText(await executor.execute('echo', { text: 'hi' }))).toBe('hi');
    expect(executor.registry.get('echo')?.metadata.risk).toBe('LOW');
  });

  it('validates arguments and reads the error', async () => {
    const executor = createTestExecutor({ tools: [echo] });
    const error = failureError(await executor.execute('echo', { text: 3 }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.field).toBe('text');
  });

  it('takes layer options, e.g. a risk gate that denies', async () => {
    const guarded = defineTool({ ...echo, metadata: { ...TEST_TOOL_METADATA, risk: 'HIGH' } });
    const executor = createTestExecutor({
      tools: [guarded],
      gate: new RiskAwareToolGate(new ToolPermissionManager({ confirm: async () => 'deny' })),
    });
    expect(failureError(await executor.execute('echo', { text: 'x' })).code).toBe(
      'PERMISSION_DENIED',
    );
  });

  it('throws when a reader meets the other outcome', async () => {
    const executor = createTestExecutor({ tools: [echo] });
    expect(() => failureError({ ok: true, content: 'fine' })).toThrow(/got success: fine/);
    const missing = await executor.execute('nope', {});
    expect(() => successText(missing)).toThrow(/\[NOT_FOUND\] Unknown tool "nope"/);
  });
});
