import {
  defineTool,
  failureResult,
  type RegisteredTool,
  resolveMetadata,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  TOOLSYS_ERROR_META_KEY,
  TOOLSYS_META_KEY,
  toCallToolResult,
  toMcpTool,
} from './mcp-tool-mapping.js';

function registered(definition: ReturnType<typeof defineTool>): RegisteredTool {
  return {
    ...definition,
    metadata: resolveMetadata(definition.metadata),
    owner: 'test',
  } as RegisteredTool;
}

describe('toMcpTool', () => {
  const deleteFile = () =>
    registered(
      defineTool({
        id: 'delete_file',
        description: 'Deletes a file.',
        inputSchema: ToolSchema.object({ path: z.string().describe('File to delete.') }),
        metadata: {
          category: 'file',
          risk: 'HIGH',
          annotations: { ...ToolHints.destructive, idempotentHint: true, sensitiveAction: true },
        },
        execute: () => 'ok',
      }),
    );

  it('sends the title, the input schema and only the hints that differ from MCP defaults', () => {
    expect(toMcpTool(deleteFile())).toEqual({
      name: 'delete_file',
      title: 'Delete file',
      description: 'Deletes a file.',
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string', description: 'File to delete.' } },
        required: ['path'],
      },
      // destructiveHint true and openWorldHint… false: MCP assumes destructive and open-world.
      annotations: { idempotentHint: true, openWorldHint: false },
    });
  });

  it('sends a read-only tool as read-only, without the hints MCP ignores for one', () => {
    const tool = registered(
      defineTool({
        id: 'web.peek',
        title: 'Peek at a page',
        description: 'Reads a page.',
        inputSchema: ToolSchema.empty(),
        metadata: {
          category: 'network',
          risk: 'LOW',
          annotations: { ...ToolHints.readOnly, openWorldHint: true },
        },
        execute: () => 'ok',
      }),
    );
    expect(toMcpTool(tool, { name: 'web_peek' })).toMatchObject({
      name: 'web_peek',
      title: 'Peek at a page',
      annotations: { readOnlyHint: true },
    });
    expect(toMcpTool(tool).annotations).toEqual({ readOnlyHint: true });
  });

  it('sends the _meta facts and the output schema only in the full listing', () => {
    const tool = registered(
      defineTool({
        id: 'get_time',
        description: 'Time.',
        inputSchema: ToolSchema.empty(),
        outputSchema: ToolSchema.object({ iso: z.string() }),
        metadata: { category: 'system', risk: 'LOW', annotations: ToolHints.readOnly },
        execute: () => 'now',
      }),
    );
    expect(toMcpTool(tool).outputSchema).toBeUndefined();
    expect(toMcpTool(tool)._meta).toBeUndefined();
    const full = toMcpTool(tool, { full: true });
    expect(full.outputSchema).toMatchObject({
      type: 'object',
      properties: { iso: { type: 'string' } },
    });
    expect(full._meta).toEqual({
      [TOOLSYS_META_KEY]: {
        category: 'system',
        risk: 'LOW',
        tags: [],
        sensitiveAction: false,
        runPolicy: 'legacy',
      },
    });
    expect(toMcpTool(deleteFile(), { full: true })._meta?.[TOOLSYS_META_KEY]).toMatchObject({
      risk: 'HIGH',
      sensitiveAction: true,
    });
  });
});

/** A tool that declares an object output schema, or none. */
function answering(outputSchema: boolean): RegisteredTool {
  return registered(
    defineTool({
      id: 'measure',
      description: 'Measures.',
      inputSchema: ToolSchema.object({}),
      ...(outputSchema
        ? { outputSchema: ToolSchema.object({ value: z.number(), width: z.number() }) }
        : {}),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly },
      execute: () => 'x',
    }),
  );
}

describe('toCallToolResult', () => {
  it('puts the object data of a tool with an output schema in structuredContent', () => {
    const tool = answering(true);
    expect(toCallToolResult(successResult('5', { data: { value: 5 } }), { tool })).toEqual({
      content: [{ type: 'text', text: '5' }],
      structuredContent: { value: 5 },
    });
  });

  it('sends only the text of a tool without an output schema (its data may not hold the text)', () => {
    const tool = answering(false);
    expect(
      toCallToolResult(successResult('The page says hello.', { data: { url: 'x' } }), { tool }),
    ).toEqual({ content: [{ type: 'text', text: 'The page says hello.' }] });
    expect(toCallToolResult(successResult('5', { data: { value: 5 } }))).toEqual({
      content: [{ type: 'text', text: '5' }],
    });
  });

  it("gives a client that announced the host's capability every tool's object data", () => {
    const tool = answering(false);
    expect(
      toCallToolResult(successResult('idle', { data: { state: 'idle' } }), { tool, data: true }),
    ).toEqual({ content: [{ type: 'text', text: 'idle' }], structuredContent: { state: 'idle' } });
  });

  it('follows the text with the artifact blocks, before the structured content', () => {
    const link = {
      type: 'resource_link' as const,
      uri: 'toolsys://data/shot.png',
      name: 'shot.png',
      mimeType: 'image/png',
      size: 3,
    };
    expect(
      toCallToolResult(successResult('shot', { data: { width: 4 } }), {
        tool: answering(true),
        artifactBlocks: [link],
      }),
    ).toEqual({
      content: [{ type: 'text', text: 'shot' }, link],
      structuredContent: { width: 4 },
    });
  });

  it('sends only text for data that is not an object', () => {
    expect(
      toCallToolResult(successResult('a,b', { data: ['a', 'b'] }), { tool: answering(true) }),
    ).toEqual({
      content: [{ type: 'text', text: 'a,b' }],
    });
  });

  it('marks a failure as an error with the rendered text and the structured error', () => {
    const result = toCallToolResult(
      failureResult('RATE_LIMITED', 'Too many calls of web_fetch.', { retryAfterMs: 1500 }),
    );
    expect(result).toEqual({
      content: [
        {
          type: 'text',
          text: 'Error: [RATE_LIMITED] Too many calls of web_fetch.\nRetry after: 1.5 s\nNext: Too many calls; wait before calling this tool again.',
        },
      ],
      isError: true,
      _meta: {
        [TOOLSYS_ERROR_META_KEY]: {
          code: 'RATE_LIMITED',
          message: 'Too many calls of web_fetch.',
          hint: 'Too many calls; wait before calling this tool again.',
          retryable: true,
          retryAfterMs: 1500,
        },
      },
    });
  });
});
