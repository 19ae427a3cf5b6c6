import type { ToolResult } from '@toolsys/core-tool-registry';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createJsonPathTools } from './json-path.js';

const registry = new ToolRegistry();
registry.registerAll(createJsonPathTools(), { owner: 'test' });
const executor = createToolExecutor({ registry });

function call(args: Record<string, unknown>): Promise<ToolResult> {
  return executor.execute('json_path', args);
}

const store = {
  store: {
    book: [
      { title: 'Sayings', author: 'Rees', price: 8.95 },
      { title: 'Sword', author: 'Waugh', price: 12.99 },
      { title: 'Moby Dick', author: 'Melville', price: 8.99, isbn: '0-553-21311-3' },
    ],
    bicycle: { color: 'red', price: 399 },
  },
};

describe('json_path', () => {
  it('returns values with normalized paths for a filter query on JSON text', async () => {
    const result = await call({
      json: JSON.stringify(store),
      path: '$.store.book[?@.price < 10].title',
    });
    expect(result).toEqual({
      ok: true,
      content: `2 matches:\n$.store.book[0].title = "Sayings"\n$.store.book[2].title = "Moby Dick"`,
      data: {
        count: 2,
        truncated: false,
        matches: [
          { path: '$.store.book[0].title', value: 'Sayings' },
          { path: '$.store.book[2].title', value: 'Moby Dick' },
        ],
      },
    });
  });

  it('accepts an already-structured document and descendant queries', async () => {
    const result = await call({ json: store, path: '$..price' });
    expect(result).toMatchObject({ ok: true, data: { count: 4 } });
  });

  it('runs match() and search() on the linear-time engine', async () => {
    const matched = await call({
      json: store,
      path: '$.store.book[?match(@.author, "M.*")].title',
    });
    expect(matched).toMatchObject({ ok: true, data: { matches: [{ value: 'Moby Dick' }] } });
    const searched = await call({
      json: store,
      path: '$.store.book[?search(@.title, "ord")].title',
    });
    expect(searched).toMatchObject({ ok: true, data: { matches: [{ value: 'Sword' }] } });
    const catastrophic = await call({
      json: { items: [`${'a'.repeat(50_000)}b`] },
      path: '$.items[?match(@, "(a+)+$")]',
    });
    expect(catastrophic).toMatchObject({ ok: true, data: { count: 0 } });
  });

  it('ends a query whose regex work exceeds the time limit with TIMEOUT', async () => {
    const limited = new ToolRegistry();
    limited.registerAll(createJsonPathTools({ matchTimeLimitMs: 1 }), { owner: 'test' });
    // match() is anchored and runs on RE2's DFA; mixed a/b text defeats it: about a second of work.
    const text = Array.from({ length: 1_000_000 }, (_, i) => ((i * 7919) % 13 < 6 ? 'a' : 'b'));
    const result = await createToolExecutor({ registry: limited }).execute('json_path', {
      json: { items: [text.join('')] },
      path: '$.items[?match(@, "(.*a){100}$")]',
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'TIMEOUT', retryable: false } });
  });

  it('applies the limit and reports truncation', async () => {
    const result = await call({ json: { list: [1, 2, 3, 4] }, path: '$.list[*]', limit: 2 });
    expect(result).toMatchObject({
      ok: true,
      data: { count: 4, truncated: true, matches: [{ value: 1 }, { value: 2 }] },
    });
  });

  it('says "No matches." for an empty result', async () => {
    const result = await call({ json: store, path: '$.nothing' });
    expect(result).toMatchObject({ ok: true, content: 'No matches.', data: { count: 0 } });
  });

  it('rejects an invalid query naming the path', async () => {
    const result = await call({ json: store, path: '$.store[' });
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'path' } });
    if (!result.ok) expect(result.error.message).toMatch(/^path: invalid JSONPath: /);
  });

  it('rejects JSON text that does not parse naming the json field', async () => {
    const result = await call({ json: '{"a": 1,}', path: '$.a' });
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'json' } });
  });

  it('requires the document', async () => {
    const result = await call({ path: '$' });
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'json' } });
  });
});
