import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolHints } from '../contract/tool-metadata.js';
import { ToolSchema } from '../contract/tool-schema.js';
import { createTestExecutor, successText } from './test-executor.js';
import { defineTestTool, TEST_TOOL_METADATA } from './test-tool.js';

describe('defineTestTool', () => {
  it('defaults the description, an empty argument schema and the test metadata', async () => {
    const tool = defineTestTool({ id: 'note', execute: () => 'noted' });
    expect(tool.description).toBe('fixture');
    expect(tool.metadata).toBe(TEST_TOOL_METADATA);
    expect(tool.inputSchema.jsonSchema).toEqual(ToolSchema.empty().jsonSchema);
    const executor = createTestExecutor({ tools: [tool] });
    expect(successText(await executor.execute('note', {}))).toBe('noted');
  });

  it('keeps every field the definition gives', async () => {
    const tool = defineTestTool({
      id: 'echo',
      description: 'Echoes its text.',
      inputSchema: ToolSchema.object({ text: z.string() }),
      metadata: { category: 'file', risk: 'MEDIUM', annotations: ToolHints.destructive },
      execute: ({ text }) => text,
    });
    expect(tool.description).toBe('Echoes its text.');
    expect(tool.metadata).toEqual({
      category: 'file',
      risk: 'MEDIUM',
      annotations: ToolHints.destructive,
    });
    const executor = createTestExecutor({ tools: [tool] });
    expect(successText(await executor.execute('echo', { text: 'hi' }))).toBe('hi');
  });
});
