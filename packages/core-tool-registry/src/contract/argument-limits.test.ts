import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolExecutor } from '../pipeline/pipeline-tool-executor.js';
import { ToolTraceRecorder } from '../pipeline/trace-recorder.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import {
  argumentLimitsOf,
  checkArgumentLimits,
  DEFAULT_ARGUMENT_LIMITS,
} from './argument-limits.js';
import { defineTool } from './tool.js';
import { ToolHints } from './tool-metadata.js';
import { successResult } from './tool-result.js';
import { ToolSchema } from './tool-schema.js';

let executed = 0;
const echo = defineTool({
  id: 'echo',
  description: 'Echoes its text.',
  inputSchema: ToolSchema.object({ text: z.string().max(100).describe('Text.') }),
  metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
  execute: ({ text }) => {
    executed += 1;
    return successResult(text);
  },
});
const content = defineTool({
  id: 'content',
  description: 'Takes a large content field.',
  inputSchema: ToolSchema.object({ content: z.string().max(3_000_000).describe('Content.') }),
  metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
  execute: () => successResult('ok'),
});
const tight = defineTool({
  id: 'tight',
  description: 'Declares its own limits.',
  inputSchema: ToolSchema.object({ items: z.array(z.unknown()).describe('Items.') }),
  metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
  argumentLimits: { maxEntries: 5, maxDepth: 3 },
  execute: () => successResult('ok'),
});

function deep(levels: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level += 1) value = [value];
  return value;
}

describe('argumentLimitsOf', () => {
  it('takes the defaults, raised to a schema that declares a longer string', () => {
    expect(argumentLimitsOf(echo)).toEqual(DEFAULT_ARGUMENT_LIMITS);
    expect(argumentLimitsOf(content).maxCharacters).toBe(3_000_000 + 65_536);
    expect(argumentLimitsOf(tight)).toEqual({
      ...DEFAULT_ARGUMENT_LIMITS,
      maxEntries: 5,
      maxDepth: 3,
    });
  });
});

describe('checkArgumentLimits', () => {
  it('accepts arguments within every limit', () => {
    expect(checkArgumentLimits(echo, { text: 'hello', extra: { a: [1, 2, 3] } })).toBeUndefined();
    expect(checkArgumentLimits(tight, { items: [[1], 2, 3] })).toBeUndefined();
  });

  it('refuses too many keys, naming the limit and the tool', () => {
    const args: Record<string, unknown> = { text: 'x' };
    for (let index = 0; index < 150_000; index += 1) args[`k${index}`] = 1;
    expect(checkArgumentLimits(echo, args)).toEqual({
      ok: false,
      error: {
        code: 'INVALID_ARGUMENT',
        message:
          'arguments: more than 10000 keys and array elements in all (the key-count limit of echo)',
        retryable: false,
        hint: 'Send only the fields echo declares, and fewer elements.',
        details: { toolId: 'echo' },
      },
    });
  });

  it('counts array elements at every depth', () => {
    expect(checkArgumentLimits(tight, { items: [1, 2, [3, 4]] })?.error.message).toBe(
      'arguments: more than 5 keys and array elements in all (the key-count limit of tight)',
    );
  });

  it('refuses more characters than the limit, counting keys and strings', () => {
    const failure = checkArgumentLimits(echo, { text: 'a'.repeat(1_048_577) });
    expect(failure?.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      retryable: false,
      message: 'arguments: more than 1048576 characters in all (the size limit of echo)',
    });
    expect(checkArgumentLimits(content, { content: 'a'.repeat(2_000_000) })).toBeUndefined();
  });

  it('refuses a 100,000-deep value without recursion, naming the depth limit', () => {
    expect(checkArgumentLimits(echo, { text: 'x', value: deep(100_000) })?.error.message).toBe(
      'arguments: nested more than 64 levels deep (the depth limit of echo)',
    );
    expect(checkArgumentLimits(echo, { value: deep(63) })).toBeUndefined();
    expect(checkArgumentLimits(echo, { value: deep(64) })?.error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('executors', () => {
  it('refuse over-limit arguments before validation and never run the tool', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    const args: Record<string, unknown> = { text: 42 };
    for (let index = 0; index < 20_000; index += 1) args[`k${index}`] = 1;
    const traces = new ToolTraceRecorder();
    for (const executor of [
      createToolExecutor({ registry }),
      createToolExecutor({ registry, traces }),
    ]) {
      const result = await executor.execute('echo', args);
      // The size limit answers, not the schema (text is a number here).
      expect(result).toMatchObject({
        ok: false,
        error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('key-count limit') },
      });
      // As JSON text too.
      const fromText = await executor.execute('echo', JSON.stringify(args));
      expect(fromText).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    }
    expect(executed).toBe(0);
    expect(JSON.stringify(traces.spans()).length).toBeLessThan(2_000);
  });
});
