import { describe, expect, it } from 'vitest';
import type { InputRequest, InputResponse, ToolContext } from '../contract/tool.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { FakeClock } from '../testing/fake-clock.js';
import { defineTestTool } from '../testing/test-tool.js';
import { ToolBatchRunner } from './batch-runner.js';
import { nestedCallOptions } from './execution-steps.js';
import { createToolExecutor } from './pipeline-tool-executor.js';

const ASK: InputRequest = { method: 'roots/list' };

/** An executor whose `ask` tool answers with what `context.requestInput` returned (or "none"). */
function setUp() {
  const registry = new ToolRegistry();
  const executor = createToolExecutor({ registry, clock: new FakeClock() });
  registry.register(
    defineTestTool({
      id: 'ask',
      async execute(_args, context: ToolContext) {
        if (!context.requestInput) return 'none';
        return JSON.stringify(await context.requestInput(ASK));
      },
    }),
  );
  registry.register(
    defineTestTool({
      id: 'nested',
      execute: async (_args, context) => {
        const inner = await executor.execute('ask', {}, nestedCallOptions(context));
        return inner.ok ? inner.content : 'failed';
      },
    }),
  );
  return { executor };
}

describe('ExecuteOptions.requestInput', () => {
  it('reaches the handler as context.requestInput, and is absent without one', async () => {
    const { executor } = setUp();
    const asked: InputRequest[] = [];
    const requestInput = async (request: InputRequest): Promise<InputResponse> => {
      asked.push(request);
      return { roots: [{ uri: 'file:///w' }] };
    };
    const answered = await executor.execute('ask', {}, { requestInput });
    expect(answered.ok && answered.content).toBe('{"roots":[{"uri":"file:///w"}]}');
    expect(asked).toEqual([ASK]);
    const without = await executor.execute('ask', {});
    expect(without.ok && without.content).toBe('none');
  });

  it('reaches calls a tool makes for its own call, and batch steps', async () => {
    const { executor } = setUp();
    const requestInput = async (): Promise<InputResponse> => ({ roots: [] });
    const nested = await executor.execute('nested', {}, { requestInput });
    expect(nested.ok && nested.content).toBe('{"roots":[]}');
    const runner = new ToolBatchRunner({ executor });
    const batch = await runner.run([{ tool: 'ask', args: {} }], { requestInput });
    expect(batch.ok && batch.content).toContain('{"roots":[]}');
  });
});
