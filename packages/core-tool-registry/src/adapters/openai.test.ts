import { describe, expect, it } from 'vitest';
import { createAdapterTestExecutor } from './adapter-test-kit.js';
import { createOpenAITools } from './openai.js';

describe('createOpenAITools', () => {
  it('describes every tool as a function tool with a dot-free name, sorted by tool id', () => {
    const executor = createAdapterTestExecutor();
    const { tools } = createOpenAITools(executor);
    expect(tools.map((tool) => tool.function.name)).toEqual(
      executor.registry.ids().map((id) => id.replace('.', '_')),
    );
    const echo = tools.find((tool) => tool.function.name === 'demo_echo');
    expect(echo).toEqual({
      type: 'function',
      function: {
        name: 'demo_echo',
        description: 'Echoes the text back.',
        parameters: {
          type: 'object',
          properties: { text: { type: 'string', description: 'What to echo.' } },
          required: ['text'],
        },
      },
    });
  });

  it('runs a tool call by its provider name and answers with a tool message', async () => {
    const toolset = createOpenAITools(createAdapterTestExecutor());
    const { message, result } = await toolset.run({
      id: 'call_1',
      type: 'function',
      function: { name: 'demo_echo', arguments: '{"text":"hi"}' },
    });
    expect(result.ok).toBe(true);
    expect(message).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'hi (call_1)' });
  });

  it('answers bad arguments with INVALID_ARGUMENT naming the field', async () => {
    const toolset = createOpenAITools(createAdapterTestExecutor());
    const { message } = await toolset.run({
      id: 'call_2',
      function: { name: 'sum_numbers', arguments: '{"expression": 5}' },
    });
    expect(message.content).toMatch(/^Error: \[INVALID_ARGUMENT\] expression: /);
  });

  it('answers an unknown name with NOT_FOUND naming close provider names', async () => {
    const toolset = createOpenAITools(createAdapterTestExecutor());
    const { message } = await toolset.run({
      id: 'call_3',
      function: { name: 'demo_ecko', arguments: '{}' },
    });
    expect(message.content).toBe(
      'Error: [NOT_FOUND] Unknown tool "demo_ecko". Did you mean: demo_echo?\nNext: Call one of: demo_echo.',
    );
  });

  it('runs calls through the executor gates: a refused call is PERMISSION_DENIED', async () => {
    const toolset = createOpenAITools(createAdapterTestExecutor());
    const { result } = await toolset.run({
      id: 'call_4',
      function: { name: 'demo_guarded', arguments: '{}' },
    });
    expect(result.ok ? undefined : result.error.code).toBe('PERMISSION_DENIED');
  });

  it('exposes only the tools the filter keeps', () => {
    const { tools } = createOpenAITools(createAdapterTestExecutor(), {
      filter: (tool) => tool.metadata.risk === 'LOW' && tool.id.startsWith('demo.'),
    });
    expect(tools.map((tool) => tool.function.name)).toEqual(['demo_echo', 'demo_files']);
  });

  it('names the files a tool wrote in the text, since tool messages take no images', async () => {
    const path = '/var/data/shot.png';
    const toolset = createOpenAITools(
      createAdapterTestExecutor({ artifacts: [{ path, mimeType: 'image/png' }] }),
    );
    const { message } = await toolset.run({
      id: 'call_5',
      function: { name: 'demo_files', arguments: '{}' },
    });
    expect(message.content).toBe(`Wrote the files.\nFile: ${path} (image/png)`);
  });
});
