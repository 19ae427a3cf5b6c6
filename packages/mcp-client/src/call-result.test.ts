import { renderResult } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { toToolResult } from './call-result.js';

const ref = { server: 'srv', tool: 'do-it' };

describe('toToolResult', () => {
  it('joins text blocks and keeps structuredContent as data', () => {
    expect(
      toToolResult(
        {
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
          structuredContent: { value: 1 },
        },
        ref,
      ),
    ).toEqual({ ok: true, content: 'a\nb', data: { value: 1 } });
  });

  it('describes images and resource links and keeps the blocks as data', () => {
    const content = [
      { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' },
      { type: 'resource_link' as const, uri: 'file:///x.txt', name: 'x' },
    ];
    expect(toToolResult({ content }, ref)).toEqual({
      ok: true,
      content: '[image: image/png, 3 bytes]\n[resource link: file:///x.txt (x)]',
      data: { content },
    });
  });

  it('maps isError to EXECUTION_FAILED carrying the remote text, not retryable', () => {
    const result = toToolResult(
      { content: [{ type: 'text', text: 'Access denied' }], isError: true },
      ref,
    );
    expect(renderResult(result)).toBe(
      'Error: [EXECUTION_FAILED] MCP tool "do-it" on server "srv" reported an error: Access denied\nNext: Read the remote error, adjust the arguments or approach, then retry once.',
    );
    expect(result.ok === false && result.error.retryable).toBe(false);
  });

  it('renders structured-only results as JSON text', () => {
    expect(toToolResult({ content: [], structuredContent: { a: 1 } }, ref)).toEqual({
      ok: true,
      content: '{"a":1}',
      data: { a: 1 },
    });
  });
});
