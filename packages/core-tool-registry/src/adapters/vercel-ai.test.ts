import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createAdapterTestExecutor } from './adapter-test-kit.js';
import { createVercelAITools } from './vercel-ai.js';

/** Usage figures the mock model reports (no real model runs here). */
const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

describe('createVercelAITools', () => {
  it('keys the tools by provider-safe name in tool-id order', () => {
    const executor = createAdapterTestExecutor();
    const { tools, names } = createVercelAITools(executor);
    expect(Object.keys(tools).map((name) => names.toToolId(name))).toEqual(executor.registry.ids());
    expect(Object.keys(tools)).toContain('demo_echo');
  });

  it('runs a tool call of a generateText loop through the executor', async () => {
    const { tools } = createVercelAITools(createAdapterTestExecutor());
    // A scripted model stands in for a provider (no model can run here): it calls demo_echo,
    // then answers with the tool's output.
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        step += 1;
        return step === 1
          ? {
              content: [
                {
                  type: 'tool-call',
                  toolCallId: 'tc_1',
                  toolName: 'demo_echo',
                  input: JSON.stringify({ text: 'hello' }),
                },
              ],
              finishReason: { unified: 'tool-calls', raw: undefined },
              usage: USAGE,
              warnings: [],
            }
          : {
              content: [{ type: 'text', text: 'done' }],
              finishReason: { unified: 'stop', raw: undefined },
              usage: USAGE,
              warnings: [],
            };
      },
    });
    const result = await generateText({
      model,
      tools,
      prompt: 'echo hello',
      stopWhen: stepCountIs(3),
    });
    const toolResults = result.steps.flatMap((entry) => entry.toolResults);
    expect(toolResults).toHaveLength(1);
    expect(toolResults[0]).toMatchObject({ toolName: 'demo_echo', output: 'hello (tc_1)' });
  });

  it('returns a failure as text the model reads, never a thrown error', async () => {
    const { tools } = createVercelAITools(createAdapterTestExecutor());
    const execute = tools.calculate?.execute;
    const output = await execute?.({ expression: 7 }, { toolCallId: 'tc_2', messages: [] });
    expect(output).toMatch(/^Error: \[INVALID_ARGUMENT\] expression: /);
  });
});
