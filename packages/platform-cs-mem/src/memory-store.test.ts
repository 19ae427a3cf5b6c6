import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MEMORY_SCHEMA_VERSION } from './memory-migrations.js';
import { MemoryStore } from './memory-store.js';
import { MemoryStoreError } from './memory-store-error.js';

const DAY = 86_400_000;
let directory: string;
let store: MemoryStore;
let clock: number;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'cs-mem-store-'));
  clock = Date.UTC(2026, 10, 1);
  store = MemoryStore.open({ path: join(directory, 'memory.db'), now: () => clock });
});

afterEach(() => {
  store.close();
  rmSync(directory, { recursive: true, force: true });
});

function expectStoreError(run: () => unknown, code: string, field?: string): MemoryStoreError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(MemoryStoreError);
    expect((error as MemoryStoreError).code).toBe(code);
    if (field !== undefined) expect((error as MemoryStoreError).field).toBe(field);
    return error as MemoryStoreError;
  }
  throw new Error('expected a MemoryStoreError');
}

describe('MemoryStore nodes', () => {
  it('creates a new file in WAL mode at the current schema version', () => {
    expect(store.schemaVersion).toBe(MEMORY_SCHEMA_VERSION);
    expect(store.migratedFrom).toBe(0);
    expect(store.database.pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('creates a node with defaults and updates it in place', () => {
    const created = store.upsertNode({ id: 'fact:1', text: 'The sky is blue' });
    expect(created).toEqual({
      id: 'fact:1',
      text: 'The sky is blue',
      role: 'fact',
      weight: 1,
      aliases: [],
      createdAt: clock,
      updatedAt: clock,
    });
    clock += 1000;
    const updated = store.upsertNode({ id: 'fact:1', text: 'The sky is grey', weight: 2 });
    expect(updated).toMatchObject({ text: 'The sky is grey', role: 'fact', weight: 2 });
    expect(updated.updatedAt).toBe(created.createdAt + 1000);
    expect(store.stats().nodes).toBe(1);
  });

  it('renames a node on id migration and keeps the old id as an alias', () => {
    store.upsertNode({ id: 'alice', text: 'Alice likes tea', role: 'person' });
    const moved = store.upsertNode({
      id: 'person:alice',
      text: 'Alice likes green tea',
      previousIds: ['alice'],
    });
    expect(moved).toMatchObject({ id: 'person:alice', role: 'person', aliases: ['alice'] });
    expect(store.getNode('alice')).toEqual({ node: moved, resolvedFrom: 'alice' });
    expect(store.stats().nodes).toBe(1);
  });

  it('follows a chain of migrations: every earlier id finds the newest node', () => {
    store.upsertNode({ id: 'a', text: 'first name' });
    store.upsertNode({ id: 'b', text: 'second name', previousIds: ['a'] });
    store.upsertNode({ id: 'c', text: 'third name', previousIds: ['b'] });
    expect(store.getNode('a')?.node.id).toBe('c');
    expect(store.getNode('b')?.node.id).toBe('c');
    expect(store.getNode('c')?.node.aliases).toEqual(['a', 'b']);
  });

  it('merges an old node into an existing one, moving its edges', () => {
    store.upsertNode({ id: 'old', text: 'old copy' });
    store.upsertNode({ id: 'new', text: 'new copy' });
    store.upsertNode({ id: 'project', text: 'a project' });
    store.link({ from: 'old', to: 'project', relation: 'works_on' });
    store.link({ from: 'old', to: 'new', relation: 'same_as' });
    store.upsertNode({ id: 'new', text: 'merged', previousIds: ['old'] });
    expect(store.stats()).toMatchObject({ nodes: 2, edges: 1 });
    expect(store.edgesOf('new').map(({ from, to, relation }) => ({ from, to, relation }))).toEqual([
      { from: 'new', to: 'project', relation: 'works_on' },
    ]);
    expect(store.getNode('old')?.node.id).toBe('new');
  });

  it('moves an alias claimed by another node, so only the new owner is found by it', () => {
    store.upsertNode({ id: 'first', text: 'one', previousIds: ['shared-old-id'] });
    store.upsertNode({ id: 'second', text: 'two', previousIds: ['shared-old-id'] });
    expect(store.getNode('first')?.node.aliases).toEqual([]);
    expect(store.getNode('shared-old-id')?.node.id).toBe('second');
    expect(store.searchNodes({ text: 'shared old id' }).map((hit) => hit.node.id)).toEqual([
      'second',
    ]);
  });

  it('writing to an old aliased id updates the node it moved to', () => {
    store.upsertNode({ id: 'x', text: 'one' });
    store.upsertNode({ id: 'y', text: 'two', previousIds: ['x'] });
    const updated = store.upsertNode({ id: 'x', text: 'three' });
    expect(updated).toMatchObject({ id: 'y', text: 'three' });
    expect(store.stats().nodes).toBe(1);
  });

  it('refuses an empty id and a negative weight, naming the field', () => {
    expectStoreError(() => store.upsertNode({ id: ' ', text: 'x' }), 'INVALID_INPUT', 'id');
    expectStoreError(
      () => store.upsertNode({ id: 'n', text: 'x', weight: -1 }),
      'INVALID_INPUT',
      'weight',
    );
  });

  it('refuses a link to a node that does not exist', () => {
    store.upsertNode({ id: 'a', text: 'a' });
    const error = expectStoreError(
      () => store.link({ from: 'a', to: 'missing', relation: 'knows' }),
      'NOT_FOUND',
      'to',
    );
    expect(error.message).toBe('to: no node with id "missing"');
  });
});

describe('MemoryStore.searchNodes', () => {
  it('ranks by text relevance and returns snippets with the hits bracketed', () => {
    store.upsertNode({ id: 'n1', text: 'deploy the staging server on Monday' });
    store.upsertNode({ id: 'n2', text: 'deploy deploy deploy: the deploy checklist' });
    store.upsertNode({ id: 'n3', text: 'unrelated note about lunch' });
    const hits = store.searchNodes({ text: 'deploy' });
    expect(hits.map((hit) => hit.node.id)).toEqual(['n2', 'n1']);
    expect(hits[1]?.snippet).toBe('[deploy] the staging server on Monday');
    expect(hits.every((hit) => hit.matchedBy === 'text')).toBe(true);
  });

  it('ranks a heavier node first among equal text matches', () => {
    store.upsertNode({ id: 'light', text: 'coffee preference', weight: 1 });
    store.upsertNode({ id: 'heavy', text: 'coffee preference', weight: 5 });
    expect(store.searchNodes({ text: 'coffee' }).map((hit) => hit.node.id)).toEqual([
      'heavy',
      'light',
    ]);
  });

  it('ranks a recently updated node first among equal text matches', () => {
    store.upsertNode({ id: 'recent', text: 'tea preference' });
    clock -= 300 * DAY;
    store.upsertNode({ id: 'stale', text: 'tea preference' });
    clock += 300 * DAY;
    expect(store.searchNodes({ text: 'tea' }).map((hit) => hit.node.id)).toEqual([
      'recent',
      'stale',
    ]);
  });

  it('filters by role', () => {
    store.upsertNode({ id: 'p', text: 'Alice on the billing team', role: 'person' });
    store.upsertNode({ id: 'f', text: 'billing runs nightly', role: 'fact' });
    expect(store.searchNodes({ text: 'billing', roles: ['person'] }).map((h) => h.node.id)).toEqual(
      ['p'],
    );
  });

  it('requires all words by default and any word with match "any"', () => {
    store.upsertNode({ id: 'both', text: 'red apples' });
    store.upsertNode({ id: 'one', text: 'red cars' });
    expect(store.searchNodes({ text: 'red apples' }).map((h) => h.node.id)).toEqual(['both']);
    expect(
      store
        .searchNodes({ text: 'red apples', match: 'any' })
        .map((h) => h.node.id)
        .sort(),
    ).toEqual(['both', 'one']);
  });

  it('treats punctuation in plain text as separators, never as syntax', () => {
    store.upsertNode({ id: 'n', text: 'Bob\'s "quoted" (note) NEAR AND OR' });
    expect(store.searchNodes({ text: 'bob\'s "quoted (note' }).map((h) => h.node.id)).toEqual([
      'n',
    ]);
  });

  it('matches prefixes with a trailing star', () => {
    store.upsertNode({ id: 'n', text: 'deployment pipeline' });
    expect(store.searchNodes({ text: 'deploy*' }).map((h) => h.node.id)).toEqual(['n']);
    expect(store.searchNodes({ text: 'deploy' })).toEqual([]);
  });

  it('finds a node by an old aliased id, first, saying which old id matched', () => {
    store.upsertNode({ id: 'proj-7', text: 'Project seven', role: 'project' });
    store.upsertNode({ id: 'project:seven', text: 'Project seven', previousIds: ['proj-7'] });
    store.upsertNode({ id: 'other', text: 'mentions proj 7 in passing' });
    const [first] = store.searchNodes({ text: 'proj-7' });
    expect(first).toMatchObject({
      matchedBy: 'alias',
      resolvedFrom: 'proj-7',
      node: { id: 'project:seven' },
    });
  });

  it('passes FTS5 syntax through and reports its syntax errors as INVALID_QUERY', () => {
    store.upsertNode({ id: 'n', text: 'alpha beta gamma' });
    expect(
      store.searchNodes({ text: '"alpha beta" NOT delta', syntax: 'fts5' }).map((h) => h.node.id),
    ).toEqual(['n']);
    for (const text of ['"unterminated', 'alpha AND', 'nocolumn:alpha', 'NEAR(']) {
      const error = expectStoreError(
        () => store.searchNodes({ text, syntax: 'fts5' }),
        'INVALID_QUERY',
        'query',
      );
      expect(error.message).toMatch(/^query: not a valid FTS5 query \(/);
    }
  });

  it('refuses huge and fractional limits and a text without words', () => {
    expectStoreError(() => store.searchNodes({ text: 'a', limit: 1e9 }), 'INVALID_QUERY', 'limit');
    expectStoreError(() => store.searchNodes({ text: 'a', limit: 1.5 }), 'INVALID_QUERY', 'limit');
    expectStoreError(() => store.searchNodes({ text: '!!! ???' }), 'INVALID_QUERY', 'query');
  });

  it('returns edges of each hit when asked', () => {
    store.upsertNode({ id: 'alice', text: 'Alice the engineer' });
    store.upsertNode({ id: 'toolsys', text: 'the toolsys project' });
    store.link({ from: 'alice', to: 'toolsys', relation: 'works_on' });
    const [hit] = store.searchNodes({ text: 'engineer', edgesPerHit: 5 });
    expect(hit?.edges).toEqual([
      { from: 'alice', to: 'toolsys', relation: 'works_on', createdAt: clock },
    ]);
  });
});

describe('MemoryStore episodes', () => {
  it('lists episodes newest first within a time window and session', () => {
    const base = clock;
    store.recordEpisode({ id: 'e1', sessionId: 's1', summary: 'one', startedAt: base - 3 * DAY });
    store.recordEpisode({ id: 'e2', sessionId: 's1', summary: 'two', startedAt: base - DAY });
    store.recordEpisode({
      id: 'e3',
      sessionId: 's2',
      summary: 'three',
      startedAt: base - 1000,
      toolCalls: [{ toolId: 'read_file', outcome: 'success', durationMs: 3 }],
    });
    expect(store.recentEpisodes().map((e) => e.id)).toEqual(['e3', 'e2', 'e1']);
    expect(store.recentEpisodes({ since: base - 2 * DAY }).map((e) => e.id)).toEqual(['e3', 'e2']);
    expect(store.recentEpisodes({ sessionId: 's1', limit: 1 }).map((e) => e.id)).toEqual(['e2']);
    expect(store.recentEpisodes({ until: base - 2 * DAY }).map((e) => e.id)).toEqual(['e1']);
    expect(store.recentEpisodes({ sessionId: 's2' })[0]?.toolCalls).toEqual([
      { toolId: 'read_file', outcome: 'success', durationMs: 3 },
    ]);
  });

  it('refuses a duplicate episode id and an end before the start', () => {
    store.recordEpisode({ id: 'e', sessionId: 's', summary: 'x' });
    expectStoreError(
      () => store.recordEpisode({ id: 'e', sessionId: 's', summary: 'y' }),
      'INVALID_INPUT',
      'id',
    );
    expectStoreError(
      () => store.recordEpisode({ sessionId: 's', summary: 'y', startedAt: 10, endedAt: 5 }),
      'INVALID_INPUT',
      'endedAt',
    );
  });
});

describe('MemoryStore macros', () => {
  const steps = [
    { tool: 'read_file', args: { path: '{path}' } },
    { tool: 'edit_file', args: { path: '{path}', text: '{0}' } },
  ];

  it('counts successful runs of the same macro', () => {
    store.recordMacro({ name: 'edit-note', params: [{ name: 'path' }], steps });
    store.recordMacro({ name: 'edit-note', params: [{ name: 'path' }], steps });
    const macro = store.recordMacro({
      name: 'edit-note',
      params: [{ name: 'path' }],
      steps,
      outcome: 'failure',
    });
    expect(macro).toMatchObject({ successCount: 2, failureCount: 1, lastUsedAt: clock });
    expect(store.recordMacroRun('EDIT-NOTE', 'success').successCount).toBe(3);
  });

  it('finds macros by exact name and by words in descriptions and tool ids', () => {
    store.recordMacro({
      name: 'edit-note',
      description: 'Edit a markdown note',
      params: [{ name: 'path' }],
      steps,
    });
    store.recordMacro({ name: 'fetch-page', steps: [{ tool: 'web_fetch', args: {} }] });
    expect(store.findMacros({ name: 'Edit-Note' }).map((m) => m.name)).toEqual(['edit-note']);
    expect(store.findMacros({ text: 'markdown' }).map((m) => m.name)).toEqual(['edit-note']);
    expect(store.findMacros({ text: 'web_fetch' }).map((m) => m.name)).toEqual(['fetch-page']);
    expect(store.findMacros({ text: 'nothing here' })).toEqual([]);
  });

  it('refuses undeclared placeholders, unused params, bad names and too many steps', () => {
    expectStoreError(
      () => store.recordMacro({ name: 'm', steps }),
      'INVALID_INPUT',
      'steps.0.args',
    );
    expectStoreError(() => store.recordMacro({ name: 'bad name', steps: [] }), 'INVALID_INPUT');
    expectStoreError(
      () =>
        store.recordMacro({
          name: 'long',
          steps: Array.from({ length: 17 }, () => ({ tool: 'get_time', args: {} })),
        }),
      'INVALID_INPUT',
      'steps',
    );
    expectStoreError(
      () =>
        store.recordMacro({
          name: 'dead',
          params: [{ name: 'unused' }],
          steps: [{ tool: 'get_time', args: {} }],
        }),
      'INVALID_INPUT',
      'params.0.name',
    );
    expectStoreError(() => store.recordMacroRun('missing', 'success'), 'NOT_FOUND', 'name');
  });
});

describe('MemoryStore.searchNodes on arbitrary text', () => {
  /** Deterministic generator of hostile search texts: quotes, operators, brackets, unicode. */
  function* hostileTexts(count: number): Generator<string> {
    const pieces = [
      '"',
      "'",
      '*',
      '(',
      ')',
      ':',
      '^',
      '-',
      '+',
      'AND',
      'OR',
      'NOT',
      'NEAR',
      '{',
      '}',
      ',',
      ' ',
      'café',
      '東京',
      'a1',
      '\\',
      '\u0000',
      'deploy',
      '🙂',
      '\n',
      'id:',
      'NEAR(a b',
    ];
    let state = 7;
    const next = (): number => {
      state = (state * 48_271) % 2_147_483_647;
      return state;
    };
    for (let index = 0; index < count; index += 1) {
      let text = '';
      const length = 1 + (next() % 12);
      for (let part = 0; part < length; part += 1) text += pieces[next() % pieces.length];
      yield text;
    }
  }

  it('never fails with anything but INVALID_QUERY in plain syntax, and never crashes in fts5', () => {
    store.upsertNode({ id: 'n', text: 'deploy café 東京 a1' });
    for (const text of hostileTexts(1_500)) {
      for (const syntax of ['plain', 'fts5'] as const) {
        try {
          store.searchNodes({ text, syntax });
        } catch (error) {
          expect(error, `${syntax}: ${JSON.stringify(text)}`).toBeInstanceOf(MemoryStoreError);
          if (syntax === 'plain')
            expect((error as MemoryStoreError).message).toMatch(/^query: has no words/);
        }
      }
    }
  });
});
