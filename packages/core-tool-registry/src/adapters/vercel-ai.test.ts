import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createAdapterTestExecutor, ONE_PIXEL_PNG } from './adapter-test-kit.js';
import { createVercelAITools } from './vercel-ai.js';

/** Usage figures the mock model reports (no real model runs here). */
const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/**
 * A scripted model: its first step calls `toolName` (with `{ text }` when given), its next steps
 * answer "done". It records the prompt the SDK built for each step.
 */
function scriptedModel(call: { toolCallId: string; toolName: string; text?: string }) {
  const prompts: unknown[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      prompts.push(prompt);
      return prompts.length === 1
        ? {
            content: [
              {
                type: 'tool-call',
                toolCallId: call.toolCallId,
                toolName: call.toolName,
                input: JSON.stringify(call.text === undefined ? {} : { text: call.text }),
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
  return { model, prompts };
}

describe('createVercelAITools', () => {
  it('keys the tools by provider-safe name in tool-id order', () => {
    const executor = createAdapterTestExecutor();
    const { tools, names } = createVercelAITools(executor);
    expect(Object.keys(tools).map((name) => names.toToolId(name))).toEqual(executor.registry.ids());
    expect(Object.keys(tools)).toContain('demo_echo');
  });

  it('runs a tool call of a generateText loop through the executor', async () => {
    const { tools } = createVercelAITools(createAdapterTestExecutor());
    // A scripted model stands in for a provider (no model can run here).
    const { model } = scriptedModel({ toolCallId: 'tc_1', toolName: 'demo_echo', text: 'hello' });
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
    const execute = tools.sum_numbers?.execute;
    const output = await execute?.({ expression: 7 }, { toolCallId: 'tc_2', messages: [] });
    expect(output).toMatch(/^Error: \[INVALID_ARGUMENT\] expression: /);
  });

  it('shows the model an image the tool wrote, and keeps the output a string', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'toolsys-vercel-'));
    try {
      const png = join(folder, 'shot.png');
      await writeFile(png, ONE_PIXEL_PNG);
      const executor = createAdapterTestExecutor({
        artifacts: [{ path: png, mimeType: 'image/png' }],
      });
      const { tools } = createVercelAITools(executor, { inlineImageBytes: 1024 * 1024 });
      // A scripted model (no model can run here); the prompt of its second step carries the
      // tool's result as the SDK built it.
      const { model, prompts } = scriptedModel({ toolCallId: 'tc_3', toolName: 'demo_files' });
      const result = await generateText({
        model,
        tools,
        prompt: 'take a picture',
        stopWhen: stepCountIs(3),
      });
      const text = `Wrote the files.\nFile: ${png} (image/png)`;
      expect(result.steps.flatMap((entry) => entry.toolResults)[0]).toMatchObject({
        toolName: 'demo_files',
        output: text,
      });
      const toolMessage = (prompts[1] as Array<{ role: string; content: unknown[] }>).find(
        (message) => message.role === 'tool',
      );
      expect(toolMessage?.content).toEqual([
        expect.objectContaining({
          type: 'tool-result',
          toolCallId: 'tc_3',
          output: {
            type: 'content',
            value: [
              { type: 'text', text },
              {
                type: 'image-data',
                data: ONE_PIXEL_PNG.toString('base64'),
                mediaType: 'image/png',
              },
            ],
          },
        }),
      ]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('sends no image parts unless asked, since the provider may turn them into text', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'toolsys-vercel-'));
    try {
      const png = join(folder, 'shot.png');
      await writeFile(png, ONE_PIXEL_PNG);
      const { tools } = createVercelAITools(
        createAdapterTestExecutor({ artifacts: [{ path: png, mimeType: 'image/png' }] }),
      );
      const { model, prompts } = scriptedModel({ toolCallId: 'tc_4', toolName: 'demo_files' });
      await generateText({ model, tools, prompt: 'take a picture', stopWhen: stepCountIs(3) });
      const toolMessage = (prompts[1] as Array<{ role: string; content: unknown[] }>).find(
        (message) => message.role === 'tool',
      );
      expect(toolMessage?.content).toEqual([
        expect.objectContaining({
          type: 'tool-result',
          output: { type: 'text', value: `Wrote the files.\nFile: ${png} (image/png)` },
        }),
      ]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
