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
  it('sends the input schema, the annotations as hints and the risk under _meta', () => {
    const tool = registered(
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
    expect(toMcpTool(tool)).toEqual({
      name: 'delete_file',
      description: 'Deletes a file.',
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string', description: 'File to delete.' } },
        required: ['path'],
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
      _meta: {
        [TOOLSYS_META_KEY]: {
          category: 'file',
          risk: 'HIGH',
          tags: [],
          sensitiveAction: true,
          runPolicy: 'legacy',
        },
      },
    });
  });

  it('sends an output schema only when the tool returns an object', () => {
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
    expect(toMcpTool(tool).outputSchema).toMatchObject({
      type: 'object',
      properties: { iso: { type: 'string' } },
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
