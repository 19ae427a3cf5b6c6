import { describe, expect, it } from 'vitest';
import { defineTool, type ToolEvent } from '../contract/tool.js';
import { successResult } from '../contract/tool-result.js';
import { ToolSchema } from '../contract/tool-schema.js';
import { RunPolicies } from '../policies/tool-run-policy.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { DefaultToolExecutor } from './default-tool-executor.js';
import { SafeAgentTool } from './safe-agent-tool.js';

const streaming = defineTool({
  id: 'stream_probe',
  description: 'Streams three chunks.',
  inputSchema: ToolSchema.empty(),
  metadata: { category: 'shell', risk: 'HIGH', tags: ['probe'] },
  runPolicy: RunPolicies.mutating,
  async execute(_args, context) {
    context.emit({ type: 'output', stream: 'stdout', text: 'one\n' });
    await new Promise((resolve) => setImmediate(resolve));
    context.emit({ type: 'output', stream: 'stderr', text: 'two\n' });
    context.emit({ type: 'progress', progress: 3, total: 3, message: 'done' });
    return successResult('finished');
  },
});

describe('SafeAgentTool', () => {
  it('passes metadata, schemas and run policy through unchanged', () => {
    const wrapped = SafeAgentTool.wrap(streaming);
    expect(wrapped.id).toBe('stream_probe');
    expect(wrapped.metadata).toBe(streaming.metadata);
    expect(wrapped.inputSchema).toBe(streaming.inputSchema);
    expect(wrapped.runPolicy).toBe(RunPolicies.mutating);
    const rules = [{ key: 'ime.shown', when: 'absent' }] as never;
    expect(SafeAgentTool.wrap({ ...streaming, environmentRules: rules }).environmentRules).toBe(
      rules,
    );
    expect(SafeAgentTool.wrap(wrapped)).toBe(wrapped);
  });

  it('never swallows streaming output (regression)', async () => {
    const registry = new ToolRegistry();
    registry.register(SafeAgentTool.wrap(streaming));
    const events: ToolEvent[] = [];
    const result = await new DefaultToolExecutor({ registry }).execute(
      'stream_probe',
      {},
      { onEvent: (event) => events.push(event) },
    );
    expect(result).toEqual({ ok: true, content: 'finished' });
    expect(events).toEqual([
      { type: 'output', stream: 'stdout', text: 'one\n' },
      { type: 'output', stream: 'stderr', text: 'two\n' },
      { type: 'progress', progress: 3, total: 3, message: 'done' },
    ]);
    expect(registry.get('stream_probe')?.metadata.risk).toBe('HIGH');
  });

  it('turns a throw into EXECUTION_FAILED with the message and no stack', async () => {
    const wrapped = SafeAgentTool.wrap(
      defineTool({
        id: 'thrower',
        description: 'Throws.',
        inputSchema: ToolSchema.empty(),
        execute() {
          throw new TypeError('disk on fire');
        },
      }),
    );
    const signal = new AbortController().signal;
    const result = await wrapped.execute(
      {},
      {
        callId: 'c',
        sessionId: 's',
        attempt: 1,
        signal,
        emit: () => {},
        confirm: async () => 'deny',
        services: undefined as never,
      },
    );
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'EXECUTION_FAILED', message: 'disk on fire' }),
    });
    expect(JSON.stringify(result)).not.toContain('at ');
  });
});
