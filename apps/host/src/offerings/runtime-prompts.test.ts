import {
  defineTool,
  type RegisteredTool,
  successResult,
  ToolHints,
  ToolRegistry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definerOf, isRuntimeTool, renderRuntimePrompt } from './runtime-prompts.js';

function registered(owner?: string): RegisteredTool {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      id: 'shortcut.count',
      description: 'Counts.',
      inputSchema: ToolSchema.object({ n: z.number().int(), all: z.boolean().default(false) }),
      metadata: {
        category: 'orchestration',
        risk: 'LOW',
        tags: ['shortcut'],
        annotations: ToolHints.readOnly,
      },
      ...(owner ? { definedBy: owner } : {}),
      execute: () => successResult('ok'),
    }),
    { owner: 'shortcuts' },
  );
  const [kind, id] = (owner ?? 'local:local').split(':') as ['local' | 'token', string];
  return registry.get('shortcut.count', { kind, id, scopes: [] }) as RegisteredTool;
}

describe('run-time prompts', () => {
  it('knows a shortcut and the principal who defined it', () => {
    expect(isRuntimeTool(registered())).toBe(true);
    expect(definerOf(registered())).toBeUndefined();
    expect(definerOf(registered('token:alice'))).toBe('token:alice');
  });

  it('asks for tool_call when the deployment lists only the discovery tools', () => {
    const [message] = renderRuntimePrompt(registered(), { n: '3' }, 'discover').messages;
    expect(message?.content).toEqual({
      type: 'text',
      text: 'Run the shortcut shortcut.count: call tool_call with these arguments, then report its result.\n{\n  "id": "shortcut.count",\n  "arguments": {\n    "n": 3\n  }\n}',
    });
  });

  it('refuses a value that is not of its parameter type', () => {
    expect(() => renderRuntimePrompt(registered(), { n: '1.5' })).toThrow(
      'arguments.n: expected an integer.',
    );
    expect(() => renderRuntimePrompt(registered(), { n: '1', all: 'yes' })).toThrow(
      'arguments.all: expected true or false.',
    );
  });
});
