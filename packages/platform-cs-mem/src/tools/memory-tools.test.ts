import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createToolExecutor,
  type PipelineToolExecutor,
  renderResult,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../memory-store.js';
import { createMemoryTools } from './index.js';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
let directory: string;
let store: MemoryStore;
let executor: PipelineToolExecutor;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'cs-mem-tools-'));
  store = MemoryStore.open({ path: join(directory, 'memory.db'), now: () => NOW });
  const registry = new ToolRegistry();
  registry.registerAll(createMemoryTools({ store, now: () => NOW }));
  executor = createToolExecutor({ registry });
});

afterEach(() => {
  store.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('createMemoryTools', () => {
  it('declares the three read-only memory tools and the one that writes nodes', () => {
    const tools = executor.registry.list();
    expect(tools.map((tool) => tool.id).sort()).toEqual([
      'memory_recall_macro',
      'memory_recent_episodes',
      'memory_remember',
      'memory_search_nodes',
    ]);
    for (const tool of tools.filter((each) => each.id !== 'memory_remember')) {
      expect(tool.metadata).toMatchObject({
        category: 'memory',
        risk: 'LOW',
        annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false },
      });
    }
    expect(executor.registry.get('memory_remember')?.metadata).toMatchObject({
      category: 'memory',
      risk: 'LOW',
      annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: true },
    });
  });

  it('builds without touching the database', () => {
    const closed = MemoryStore.open({ path: ':memory:' });
    closed.close();
    expect(createMemoryTools({ store: closed })).toHaveLength(4);
  });
});

describe('memory_remember', () => {
  it('writes a node that memory_search_nodes then finds, and updates it under the same id', async () => {
    const created = await executor.execute('memory_remember', {
      id: 'person:alice',
      text: 'Alice prefers dark mode',
      role: 'person',
    });
    expect(renderResult(created)).toBe('Remembered person:alice [person]: Alice prefers dark mode');
    expect(created.ok && created.data).toEqual({
      id: 'person:alice',
      role: 'person',
      created: true,
      links: [],
    });
    const found = await executor.execute('memory_search_nodes', { query: 'dark mode' });
    expect(renderResult(found)).toContain('1. person:alice [person]: Alice prefers [dark] [mode]');

    const updated = await executor.execute('memory_remember', {
      id: 'person:alice',
      text: 'Alice prefers light mode',
    });
    expect(renderResult(updated)).toBe('Updated person:alice [person]: Alice prefers light mode');
    expect(store.getNode('person:alice')?.node.text).toBe('Alice prefers light mode');
  });

  it('links the node to existing ones in the same write', async () => {
    store.upsertNode({ id: 'project:billing', text: 'The billing service', role: 'project' });
    const result = await executor.execute('memory_remember', {
      id: 'person:bob',
      text: 'Bob maintains billing',
      role: 'person',
      links: [{ relation: 'works_on', to: 'project:billing' }],
    });
    expect(renderResult(result)).toBe(
      'Remembered person:bob [person]: Bob maintains billing\nLinks: person:bob -works_on-> project:billing',
    );
    const found = await executor.execute('memory_search_nodes', { query: 'bob', edges: 5 });
    expect(renderResult(found)).toContain('links: person:bob -works_on-> project:billing');
  });

  it('writes nothing when a link names a node that does not exist', async () => {
    const result = await executor.execute('memory_remember', {
      id: 'person:carol',
      text: 'Carol runs support',
      links: [{ relation: 'works_on', to: 'project:missing' }],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('NOT_FOUND');
    expect(result.error.message).toContain('project:missing');
    expect(store.getNode('person:carol')).toBeUndefined();
  });

  it('stores hostile text as text: quotes, SQL and FTS syntax neither break nor widen a search', async () => {
    const hostile = `'); DROP TABLE nodes; -- "NEAR(a b)" OR * ${'\u202e'}`;
    const result = await executor.execute('memory_remember', {
      id: `fact:"x' OR 1=1`,
      text: hostile,
    });
    expect(result.ok).toBe(true);
    expect(store.getNode(`fact:"x' OR 1=1`)?.node.text).toBe(hostile);
    const none = await executor.execute('memory_search_nodes', { query: 'unrelated words' });
    expect(renderResult(none)).toContain('No memory nodes match');
  });

  it('refuses an empty id or text naming the field, and more links than it writes at once', async () => {
    const empty = await executor.execute('memory_remember', { id: '', text: 'x' });
    expect(!empty.ok && empty.error.field).toBe('id');
    const links = Array.from({ length: 21 }, (_, index) => ({ relation: 'r', to: `n${index}` }));
    const many = await executor.execute('memory_remember', { id: 'a', text: 'x', links });
    expect(!many.ok && many.error.field).toBe('links');
    expect(store.getNode('a')).toBeUndefined();
  });
});

describe('memory_search_nodes', () => {
  beforeEach(() => {
    store.upsertNode({ id: 'alice', text: 'Alice prefers dark mode', role: 'person' });
    store.upsertNode({
      id: 'person:alice',
      text: 'Alice prefers dark mode',
      previousIds: ['alice'],
    });
    store.upsertNode({ id: 'pref:editor', text: 'The team prefers vim', role: 'preference' });
    store.link({ from: 'person:alice', to: 'pref:editor', relation: 'shares' });
  });

  it('returns ranked nodes with snippets the model reads', async () => {
    const result = await executor.execute('memory_search_nodes', {
      query: 'prefers',
      roles: ['preference'],
    });
    expect(renderResult(result)).toBe(
      '1 memory node for "prefers":\n1. pref:editor [preference]: The team [prefers] vim',
    );
  });

  it('finds a node by its old id and says so', async () => {
    const result = await executor.execute('memory_search_nodes', { query: 'alice', edges: 2 });
    expect(renderResult(result)).toBe(
      '1 memory node for "alice":\n1. person:alice [person] (found by its old id alice): Alice prefers dark mode\n   links: person:alice -shares-> pref:editor',
    );
    expect(result.ok && result.data).toEqual({
      hits: [
        {
          id: 'person:alice',
          role: 'person',
          text: 'Alice prefers dark mode',
          snippet: 'Alice prefers dark mode',
          score: null,
          matchedBy: 'alias',
          resolvedFrom: 'alice',
          aliases: ['alice'],
          weight: 1,
          updatedAt: new Date(NOW).toISOString(),
          edges: [{ from: 'person:alice', to: 'pref:editor', relation: 'shares' }],
        },
      ],
    });
  });

  it('says what to try when nothing matches', async () => {
    const result = await executor.execute('memory_search_nodes', { query: 'emacs users' });
    expect(renderResult(result)).toBe(
      'No memory nodes match "emacs users". Retry with match "any", fewer or different words, or a prefix such as "deploy*".',
    );
  });

  it('returns INVALID_ARGUMENT for an FTS5 syntax error', async () => {
    const result = await executor.execute('memory_search_nodes', {
      query: '"dark mode',
      syntax: 'fts5',
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'query',
      message: 'query: not a valid FTS5 query (unterminated string)',
    });
  });

  it('returns INVALID_ARGUMENT for a huge limit', async () => {
    const result = await executor.execute('memory_search_nodes', {
      query: 'dark',
      limit: 1_000_000_000,
    });
    expect(!result.ok && result.error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'limit' });
  });

  it('returns INVALID_ARGUMENT for a query without words', async () => {
    const result = await executor.execute('memory_search_nodes', { query: '***' });
    expect(renderResult(result)).toMatch(
      /^Error: \[INVALID_ARGUMENT\] query: has no words to search for \(letters or digits\)\n/,
    );
  });

  it('does not search when the call is already cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await executor.execute(
      'memory_search_nodes',
      { query: 'dark' },
      { signal: controller.signal },
    );
    expect(!result.ok && result.error).toMatchObject({
      code: 'EXECUTION_FAILED',
      message: 'The call was cancelled by the caller.',
    });
  });

  it('returns UNSUPPORTED once the database is closed', async () => {
    store.close();
    const result = await executor.execute('memory_search_nodes', { query: 'dark' });
    expect(!result.ok && result.error).toMatchObject({
      code: 'UNSUPPORTED',
      message: 'the memory database is closed',
    });
  });
});

describe('memory_recent_episodes', () => {
  beforeEach(() => {
    store.recordEpisode({
      id: 'old',
      sessionId: 's1',
      summary: 'Set up the repo',
      startedAt: NOW - 3 * 3_600_000,
    });
    store.recordEpisode({
      id: 'new',
      sessionId: 's2',
      summary: 'Fixed the failing test',
      startedAt: NOW - 60_000,
      endedAt: NOW - 30_000,
      toolCalls: [
        { toolId: 'read_file', outcome: 'ok' },
        { toolId: 'shell_execute', outcome: 'EXECUTION_FAILED', errorSlug: 'execution-failed' },
      ],
    });
  });

  it('lists episodes of a time window newest first with their tool calls', async () => {
    const result = await executor.execute('memory_recent_episodes', { sinceMinutes: 600 });
    expect(renderResult(result)).toBe(
      [
        '2 episodes, newest first:',
        '- 2026-11-29T11:59:00.000Z (s2) Fixed the failing test [read_file → shell_execute:EXECUTION_FAILED]',
        '- 2026-11-29T09:00:00.000Z (s1) Set up the repo',
      ].join('\n'),
    );
  });

  it('filters by window and session', async () => {
    const recent = await executor.execute('memory_recent_episodes', { sinceMinutes: 10 });
    expect(recent.ok && (recent.data as { episodes: { id: string }[] }).episodes).toMatchObject([
      { id: 'new' },
    ]);
    const session = await executor.execute('memory_recent_episodes', {
      sessionId: 's1',
      includeToolCalls: false,
    });
    expect(session.ok && session.data).toEqual({
      episodes: [
        {
          id: 'old',
          sessionId: 's1',
          summary: 'Set up the repo',
          startedAt: '2026-11-29T09:00:00.000Z',
          endedAt: '2026-11-29T09:00:00.000Z',
        },
      ],
    });
  });

  it('returns INVALID_ARGUMENT for a time that is not ISO 8601', async () => {
    const result = await executor.execute('memory_recent_episodes', { since: 'yesterday-ish' });
    expect(!result.ok && result.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'since',
      message: 'since: "yesterday-ish" is not an ISO 8601 time',
    });
  });

  it('returns INVALID_ARGUMENT for a huge limit', async () => {
    const result = await executor.execute('memory_recent_episodes', { limit: 5000 });
    expect(!result.ok && result.error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'limit' });
  });

  it('says how to widen an empty window', async () => {
    const result = await executor.execute('memory_recent_episodes', { sessionId: 'nobody' });
    expect(renderResult(result)).toBe(
      'No episodes in that window. Widen it (a larger sinceMinutes, or no sessionId), or search facts with memory_search_nodes.',
    );
  });
});

describe('memory_recall_macro', () => {
  beforeEach(() => {
    store.recordMacro({
      name: 'edit-note',
      description: 'Append a line to a markdown note',
      params: [
        { name: 'path', description: 'note file' },
        { name: 'times', type: 'number' },
      ],
      steps: [
        { tool: 'read_file', args: { path: '{path}' } },
        { tool: 'edit_file', args: { path: 'notes/{path}', repeat: '{times}', after: '{0}' } },
      ],
    });
  });

  it('returns steps ready for tool_batch_run with the arguments filled in', async () => {
    const result = await executor.execute('memory_recall_macro', {
      query: 'markdown note',
      arguments: { path: 'todo.md', times: 2 },
    });
    expect(result.ok).toBe(true);
    const [macro] =
      (result.ok && (result.data as { macros: Record<string, unknown>[] }).macros) || [];
    expect(macro).toMatchObject({
      name: 'edit-note',
      successCount: 1,
      ready: true,
      missingArguments: [],
      batch: {
        steps: [
          { tool: 'read_file', args: { path: 'todo.md' } },
          { tool: 'edit_file', args: { path: 'notes/todo.md', repeat: 2, after: '{0}' } },
        ],
      },
      shortcut: {
        id: 'shortcut.edit_note',
        description: 'Append a line to a markdown note',
        params: [
          { name: 'path', type: 'string', description: 'note file' },
          { name: 'times', type: 'number', description: '' },
        ],
        steps: [
          { tool: 'read_file', args: { path: '{path}' } },
          { tool: 'edit_file', args: { path: 'notes/{path}', repeat: '{times}', after: '{0}' } },
        ],
      },
    });
    expect(renderResult(result)).toBe(
      '1 macro:\n- edit-note (succeeded 1×, failed 0×): params: path, times; Append a line to a markdown note\n  tool_batch_run {"steps":[{"tool":"read_file","args":{"path":"todo.md"}},{"tool":"edit_file","args":{"path":"notes/todo.md","repeat":2,"after":"{0}"}}]}',
    );
  });

  it('says which arguments are missing before the steps can run', async () => {
    const result = await executor.execute('memory_recall_macro', { name: 'EDIT-NOTE' });
    expect(renderResult(result)).toMatch(/Needs arguments: path, times before it can run\.$/);
  });

  it('returns INVALID_ARGUMENT for a mistyped argument', async () => {
    const result = await executor.execute('memory_recall_macro', {
      name: 'edit-note',
      arguments: { path: 'a.md', times: 'two' },
    });
    expect(!result.ok && result.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'arguments',
      message: 'arguments: times: expected number',
    });
  });

  it('returns INVALID_ARGUMENT without a name or a query', async () => {
    const result = await executor.execute('memory_recall_macro', {});
    expect(!result.ok && result.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'give name or query (or both)',
    });
  });

  it('says so when no macro matches', async () => {
    const result = await executor.execute('memory_recall_macro', { query: 'deploy' });
    expect(renderResult(result)).toBe(
      'No macro matches "deploy". Plan the steps yourself; successful sequences are remembered as macros.',
    );
  });
});
