import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdapterTestExecutor, ONE_PIXEL_PNG } from './adapter-test-kit.js';
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
      name: 'sum_numbers',
      input: { expression: '2+3' },
    });
    expect(block).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: '5' });
  });

  it('marks a failed call with is_error and the next step', async () => {
    const toolset = createAnthropicTools(createAdapterTestExecutor());
    const { block } = await toolset.run({ id: 'toolu_2', name: 'sum_numbers', input: {} });
    expect(block.is_error).toBe(true);
    expect(block.content).toMatch(/^Error: \[INVALID_ARGUMENT\] expression: required/);
    expect(block.content).toContain('Next: Fix the arguments and retry.');
  });

  it('sends an image the tool wrote inline, after the text naming it', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'toolsys-anthropic-'));
    try {
      const png = join(folder, 'shot.png');
      await writeFile(png, ONE_PIXEL_PNG);
      const executor = createAdapterTestExecutor({
        artifacts: [{ path: png, mimeType: 'image/png', description: 'the screen' }],
      });
      const { block } = await createAnthropicTools(executor).run({
        id: 'toolu_3',
        name: 'demo_files',
        input: {},
      });
      expect(block).toEqual({
        type: 'tool_result',
        tool_use_id: 'toolu_3',
        content: [
          { type: 'text', text: `Wrote the files.\nFile: ${png} (image/png, the screen)` },
          {
            type: 'image',
            source: {
              type: 'base64',
              media_type: 'image/png',
              data: ONE_PIXEL_PNG.toString('base64'),
            },
          },
        ],
      });
      // Switched off, or over the size: the text alone, still naming the file.
      const textOnly = createAnthropicTools(executor, { inlineImageBytes: 0 });
      const { block: plain } = await textOnly.run({ id: 'toolu_4', name: 'demo_files', input: {} });
      expect(plain.content).toBe(`Wrote the files.\nFile: ${png} (image/png, the screen)`);
      const small = createAnthropicTools(executor, { inlineImageBytes: ONE_PIXEL_PNG.length - 1 });
      const { block: over } = await small.run({ id: 'toolu_5', name: 'demo_files', input: {} });
      expect(over.content).toBe(plain.content);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
