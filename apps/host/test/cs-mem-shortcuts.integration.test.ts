import {
  createToolExecutor,
  defineTool,
  type PipelineToolExecutor,
  successResult,
  ToolBatchRunner,
  ToolHints,
  type ToolMetadataInput,
  ToolRegistry,
  ToolSchema,
  ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import { parseShortcutDefinition } from '@toolsys/core-tools';
import { createMemoryTools, MemoryStore, TraceMemoryRecorder } from '@toolsys/platform-cs-mem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

function echoTool(id: string, metadata: ToolMetadataInput) {
  return defineTool({
    id,
    description: `Echoes for ${id}.`,
    inputSchema: ToolSchema.empty(),
    metadata,
    execute: () => successResult(id),
  });
}

let store: MemoryStore;
let registry: ToolRegistry;
let executor: PipelineToolExecutor;

beforeEach(() => {
  store = MemoryStore.open({ path: ':memory:' });
  registry = new ToolRegistry();
  registry.registerAll([
    echoTool('read_file', { category: 'file', risk: 'LOW', annotations: ToolHints.readOnly }),
    echoTool('edit_file', { category: 'file', risk: 'MEDIUM', annotations: ToolHints.destructive }),
    ...createMemoryTools({ store }),
  ]);
  executor = createToolExecutor({ registry });
});

afterEach(() => store.close());

describe('alignment with the core registry', () => {
  it('records episodes and macros from the real ToolTraceRecorder', () => {
    const traces = new ToolTraceRecorder();
    const recorder = new TraceMemoryRecorder({ store });
    recorder.attach(traces);
    for (const [callId, toolId] of [
      ['c1', 'read_file'],
      ['c2', 'edit_file'],
    ] as const) {
      traces
        .start({ callId, toolId, attempt: 1, args: { path: 'secret.txt' } })
        .complete(successResult('done'));
    }
    recorder.close();
    expect(store.recentEpisodes()[0]?.summary).toBe('2 tool calls: read_file → edit_file');
    expect(store.findMacros({ name: 'auto.read_file.edit_file' })[0]?.successCount).toBe(1);
  });

  it('recalls a macro whose batch steps ToolBatchRunner accepts and whose shortcut parses', async () => {
    store.recordMacro({
      name: 'Edit-Note',
      description: 'Read a note, then edit it',
      params: [{ name: 'path', description: 'the note' }],
      steps: [
        { tool: 'read_file', args: { path: '{path}' } },
        { tool: 'edit_file', args: { path: '{path}', old: '{0}' } },
      ],
    });
    const result = await executor.execute('memory_recall_macro', {
      name: 'edit-note',
      arguments: { path: 'todo.md' },
    });
    expect(result.ok).toBe(true);
    const data = (result.ok ? result.data : undefined) as {
      macros: { batch: { steps: unknown }; shortcut: unknown }[];
    };
    const macro = data.macros[0];
    const batch = new ToolBatchRunner({ executor }).parse(macro?.batch.steps);
    expect(batch).toEqual({
      ok: true,
      steps: [
        { tool: 'read_file', args: { path: 'todo.md' } },
        { tool: 'edit_file', args: { path: 'todo.md', old: '{0}' } },
      ],
    });
    const shortcut = parseShortcutDefinition(macro?.shortcut, { registry });
    expect(shortcut.ok).toBe(true);
    expect(shortcut.ok && shortcut.definition.id).toBe('shortcut.edit_note');
  });
});
