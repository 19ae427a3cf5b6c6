import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ConfirmationDecision,
  createToolExecutor,
  defineTool,
  RiskAwareToolGate,
  ToolHints,
  ToolPermissionManager,
  ToolRegistry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOrchestrationTools } from './index.js';

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'toolsys-shortcut-grants-'));
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** A shortcut of one MEDIUM step that writes `text`. */
function shortcut(text: string) {
  return {
    id: 'shortcut.note',
    description: 'Writes a note.',
    params: [],
    steps: [{ tool: 'save_note', args: { text } }],
  };
}

function setUp(...answers: ConfirmationDecision[]) {
  const asked: string[] = [];
  const registry = new ToolRegistry();
  const permissions = new ToolPermissionManager({
    confirm: async (request) => {
      asked.push(request.toolId);
      return answers.shift() ?? 'deny';
    },
    // The definition itself is not what these tests are about.
    alwaysAllowed: ['shortcut_define', 'save_note'],
  });
  const executor = createToolExecutor({ registry, gate: new RiskAwareToolGate(permissions) });
  registry.register(
    defineTool({
      id: 'save_note',
      description: 'fixture: MEDIUM risk',
      inputSchema: ToolSchema.object({ text: z.string() }),
      metadata: { category: 'file', risk: 'MEDIUM', annotations: ToolHints.mutating },
      execute: ({ text }) => `saved ${text}`,
    }),
  );
  registry.registerAll(
    createOrchestrationTools({ executor, shortcutDirectory: join(directory, 'shortcuts') }),
  );
  const define = (text: string) =>
    executor.execute('shortcut_define', { definition: shortcut(text) });
  const run = async () => {
    const result = await executor.execute('shortcut.note', {});
    return result.ok ? 'ok' : result.error.code;
  };
  return { asked, define, run };
}

describe('a redefined shortcut', () => {
  it('is asked for again: a session grant covers only the steps it was given for', async () => {
    const { asked, define, run } = setUp('allow_session', 'deny');
    await define('mine');
    expect(await run()).toBe('ok');
    expect(await run()).toBe('ok');
    await define('someone else’s steps');
    expect(await run()).toBe('PERMISSION_DENIED');
    expect(asked).toEqual(['shortcut.note', 'shortcut.note']);
  });

  it('keeps its grant when defined again with the very same steps', async () => {
    const { asked, define, run } = setUp('allow_session');
    await define('mine');
    expect(await run()).toBe('ok');
    await define('mine');
    expect(await run()).toBe('ok');
    expect(asked).toEqual(['shortcut.note']);
  });
});
