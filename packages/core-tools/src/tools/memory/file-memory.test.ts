import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createToolExecutor,
  RiskAwareToolGate,
  ToolPermissionManager,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createFileMemoryTools } from './index.js';

let directory: string;
let clock = 0;

beforeEach(async () => {
  directory = join(await mkdtemp(join(tmpdir(), 'toolsys-memory-')), 'notes');
  clock = Date.UTC(2026, 0, 1);
});

afterEach(async () => {
  await rm(join(directory, '..'), { recursive: true, force: true });
});

function executor(options: { gate?: RiskAwareToolGate } = {}) {
  const registry = new ToolRegistry();
  registry.registerAll(
    createFileMemoryTools({
      directory,
      now: () => {
        clock += 1000;
        return clock;
      },
    }),
  );
  return createToolExecutor({ registry, ...options });
}

describe('memorize', () => {
  it('writes a Markdown note with front matter', async () => {
    const result = await executor().execute('memorize', {
      key: 'tomatoes',
      content: 'Water twice a week.',
      tags: ['Garden', 'summer'],
    });
    expect(result).toEqual({
      ok: true,
      content: 'Memorized note "tomatoes" (19 characters, tags: garden, summer).',
      data: { key: 'tomatoes', tags: ['garden', 'summer'], length: 19, created: true },
    });
    const text = await readFile(join(directory, 'tomatoes.md'), 'utf8');
    const [, front, body] = text.split('---\n');
    expect(parseYaml(front ?? '')).toEqual({
      key: 'tomatoes',
      tags: ['garden', 'summer'],
      created: '2026-01-01T00:00:01.000Z',
      updated: '2026-01-01T00:00:01.000Z',
    });
    expect(body).toBe('\nWater twice a week.\n');
  });

  it('appends to an existing note, keeping its tags and creation time', async () => {
    const tools = executor();
    await tools.execute('memorize', { key: 'log', content: 'first', tags: ['a'] });
    const result = await tools.execute('memorize', {
      key: 'log',
      content: 'second',
      mode: 'append',
    });
    expect(result.ok && result.content).toBe('Appended to note "log" (13 characters, tags: a).');
    const recalled = await tools.execute('recall', { key: 'log' });
    expect(recalled.ok && recalled.content).toBe(
      '# log [a]\nUpdated: 2026-01-01T00:00:02.000Z\n\nfirst\n\nsecond',
    );
  });

  it('leaves no temporary files behind (atomic write)', async () => {
    const tools = executor();
    for (let index = 0; index < 5; index++) {
      await tools.execute('memorize', { key: 'same', content: `version ${index}` });
    }
    expect(await readdir(directory)).toEqual(['same.md']);
  });

  it.each([
    ['../escape', 'key'],
    ['a/b', 'key'],
    ['', 'key'],
    ['x..y', 'key'],
  ])('rejects the key %j naming the field', async (key, field) => {
    const result = await executor().execute('memorize', { key, content: 'x' });
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field } });
  });

  it('rejects bad tags and a missing content naming the field', async () => {
    expect(
      await executor().execute('memorize', { key: 'k', content: 'x', tags: ['a,b'] }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'tags.0' } });
    expect(await executor().execute('memorize', { key: 'k' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'content' },
    });
  });
});

describe('recall', () => {
  async function seeded() {
    const tools = executor();
    await tools.execute('memorize', {
      key: 'tomatoes',
      content: 'Tomatoes need full sun.',
      tags: ['garden'],
    });
    await tools.execute('memorize', {
      key: 'basil',
      content: 'Basil likes sun and warm nights.',
      tags: ['garden', 'herbs'],
    });
    await tools.execute('memorize', {
      key: 'taxes',
      content: 'File before April.',
      tags: ['admin'],
    });
    return tools;
  }

  it('lists the most recently updated notes without arguments', async () => {
    const result = await (await seeded()).execute('recall', {});
    expect(result.ok && result.content).toBe(
      '3 note(s):\n- taxes [admin]: File before April.\n- basil [garden, herbs]: Basil likes sun and warm nights.\n- tomatoes [garden]: Tomatoes need full sun.',
    );
  });

  it('filters by tag', async () => {
    const result = await (await seeded()).execute('recall', { tag: 'HERBS' });
    expect(result).toMatchObject({ ok: true, data: { total: 1, notes: [{ key: 'basil' }] } });
  });

  it('searches the full text, requiring every word', async () => {
    const tools = await seeded();
    const both = await tools.execute('recall', { query: 'sun' });
    expect(both.ok && (both.data as { total: number }).total).toBe(2);
    const one = await tools.execute('recall', { query: 'sun NIGHTS' });
    expect(one).toMatchObject({ ok: true, data: { total: 1, notes: [{ key: 'basil' }] } });
    const none = await tools.execute('recall', { query: 'sun', tag: 'admin' });
    expect(none.ok && none.content).toBe('No notes match tag "admin" and query "sun".');
  });

  it('returns NOT_FOUND for an unknown key, naming existing keys', async () => {
    const result = await (await seeded()).execute('recall', { key: 'tomato' });
    expect(result).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', field: 'key' } });
    expect(!result.ok && result.error.hint).toContain('tomatoes');
  });

  it('reads a hand-written note without front matter', async () => {
    const tools = await seeded();
    await writeFile(join(directory, 'plain.md'), 'Just text.\n');
    const result = await tools.execute('recall', { key: 'plain' });
    expect(result.ok && result.content).toBe('# plain\n\nJust text.');
  });

  it('says so when there are no notes yet', async () => {
    const result = await executor().execute('recall', {});
    expect(result.ok && result.content).toBe('There are no notes yet; save one with memorize.');
  });

  it('rejects a limit out of range naming the field', async () => {
    expect(await executor().execute('recall', { limit: 0 })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'limit' },
    });
  });
});

describe('forget', () => {
  it('deletes the note file', async () => {
    const tools = executor();
    await tools.execute('memorize', { key: 'temp', content: 'x' });
    expect(await tools.execute('forget', { key: 'temp' })).toMatchObject({ ok: true });
    expect(await readdir(directory)).toEqual([]);
    expect(await tools.execute('forget', { key: 'temp' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND', field: 'key' },
    });
  });

  it('is refused by the risk gate when the user denies it, and the note stays', async () => {
    const asked: string[] = [];
    const gate = new RiskAwareToolGate(
      new ToolPermissionManager({
        confirm: async (request) => {
          asked.push(request.toolId);
          return 'deny';
        },
      }),
    );
    const tools = executor({ gate });
    await tools.execute('memorize', { key: 'keep', content: 'x' });
    const result = await tools.execute('forget', { key: 'keep' });
    expect(result).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(asked).toEqual(['forget']);
    expect(await readdir(directory)).toEqual(['keep.md']);
  });
});
