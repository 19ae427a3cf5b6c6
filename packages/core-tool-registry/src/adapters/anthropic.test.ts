import { describe, expect, it } from 'vitest';
import { createAdapterTestExecutor } from './adapter-test-kit.js';
import { createAnthropicTools } from './anthropic.js';

describe('createAnthropicTools', () => {
  it('describes every tool with name, description and input_schema, sorted by tool id', () => {
    const executor = createAdapterTestExecutor();
    const { tools, names } = createAnthropicTools(executor);
    expect(tools.map((tool) => names.toToolId(tool.name))).toEqual(executor.registry.ids());
    expect(tools.find((tool) => tool.name === 'demo_echo')).toEqual({
      name: 'demo_echo',
      description: 'Echoes the text back.',
      input_schema: {
        type: 'object',
        properties: { text: { type: 'string', description: 'What to echo.' } },
        required: ['text'],
      },
    });
  });

  it('answers a tool_use with a tool_result block', async () => {
    const toolset = createAnthropicTools(createAdapterTestExecutor());
    const { block } = await toolset.run({
      type: 'tool_use',
      id: 'toolu_1',
      name: 'calculate',
      input: { expression: '2+3' },
    });
    expect(block).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: '5' });
  });

  it('marks a failed call with is_error and the next step', async () => {
    const toolset = createAnthropicTools(createAdapterTestExecutor());
    const { block } = await toolset.run({ id: 'toolu_2', name: 'calculate', input: {} });
    expect(block.is_error).toBe(true);
    expect(block.content).toMatch(/^Error: \[INVALID_ARGUMENT\] expression: required/);
    expect(block.content).toContain('Next: Fix the arguments and retry.');
  });
});
