import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CallPrincipal,
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
import { createDiscoveryTools } from '../discovery/index.js';
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
    alwaysAllowed: ['shortcut_define', 'save_note', 'shortcut_run'],
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
  registry.registerAll(createDiscoveryTools({ executor }));
  const define = (text: string, principal?: CallPrincipal) =>
    executor.execute('shortcut_define', { definition: shortcut(text) }, { principal });
  const run = async (principal?: CallPrincipal) => {
    const result = await executor.execute('shortcut.note', {}, { principal });
    return result.ok ? 'ok' : result.error.code;
  };
  const texts = (principal?: CallPrincipal) =>
    executor.execute('shortcut_list', {}, { principal }).then((result) => {
      const data = result.ok
        ? (result.data as { shortcuts: Array<{ description: string }> })
        : undefined;
      return data?.shortcuts.map((listed) => listed.description) ?? [];
    });
  return { asked, define, run, texts, executor, registry };
}

const alice: CallPrincipal = { id: 'alice', kind: 'token', scopes: ['*'] };
const bob: CallPrincipal = { id: 'bob', kind: 'oauth', scopes: ['*'] };

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

describe('a shortcut belongs to its definer', () => {
  it('is unseen and uncallable by another principal: NOT_FOUND, as an unknown id', async () => {
    const { define, run, texts, executor } = setUp('allow_session');
    await define('mine', alice);
    expect(await run(alice)).toBe('ok');
    expect(await run(bob)).toBe('NOT_FOUND');
    expect(await texts(bob)).toEqual([]);
    const viaRun = await executor.execute(
      'shortcut_run',
      { id: 'shortcut.note' },
      { principal: bob },
    );
    expect(!viaRun.ok && viaRun.error.code).toBe('NOT_FOUND');
    const search = await executor.execute('tool_search', { query: 'note' }, { principal: bob });
    expect(search.ok && search.content).not.toContain('shortcut.note');
  });

  it('is never replaced by another principal defining the same id: each gets its own', async () => {
    const { asked, define, run, texts } = setUp('allow_session', 'allow_session');
    await define('mine', alice);
    expect(await run(alice)).toBe('ok');
    const other = await define('someone else’s steps', bob);
    expect(other.ok && other.content).toMatch(/^Defined shortcut\.note/);
    // Alice's grant still covers her own, unchanged steps; Bob is asked for his.
    expect(await run(alice)).toBe('ok');
    expect(await run(bob)).toBe('ok');
    expect(asked).toEqual(['shortcut.note', 'shortcut.note']);
    expect(await texts(alice)).toHaveLength(1);
    expect(await texts(bob)).toHaveLength(1);
  });

  it('is saved with its definer and comes back in the same namespace after a restart', async () => {
    const first = setUp();
    await first.define('mine', alice);
    await first.define('bob’s', bob);
    const files = readdirSync(join(directory, 'shortcuts')).sort();
    expect(files).toHaveLength(2);
    const saved = files.map((file) =>
      JSON.parse(readFileSync(join(directory, 'shortcuts', file), 'utf8')),
    );
    expect(saved.map((definition) => definition.definedBy).sort()).toEqual([
      'oauth:bob',
      'token:alice',
    ]);
    const again = setUp();
    expect(again.registry.get('shortcut.note', alice)?.definedBy).toBe('token:alice');
    expect(again.registry.get('shortcut.note', bob)?.definedBy).toBe('oauth:bob');
    expect(again.registry.get('shortcut.note')).toBeUndefined();
  });

  it('from before owners were recorded belongs to the local principal', async () => {
    const folder = join(directory, 'shortcuts');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'shortcut.note.json'), JSON.stringify(shortcut('old')));
    const { registry } = setUp();
    expect(registry.get('shortcut.note')?.definedBy).toBe('local:local');
    expect(registry.get('shortcut.note', alice)).toBeUndefined();
  });

  it('is not loaded from a file whose name does not match its recorded definer', () => {
    const folder = join(directory, 'shortcuts');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'shortcut.note.json'),
      JSON.stringify({ ...shortcut('forged'), definedBy: 'token:alice' }),
    );
    const { registry } = setUp();
    expect(registry.get('shortcut.note', alice)).toBeUndefined();
    expect(registry.get('shortcut.note')).toBeUndefined();
  });
});
