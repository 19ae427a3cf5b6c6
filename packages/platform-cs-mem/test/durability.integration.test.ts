import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../src/memory-store.js';
import { startWriter, type WriterProcess } from './support/writer-process.js';

let directory: string;
let path: string;
let writer: WriterProcess | undefined;
const stores: MemoryStore[] = [];

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'cs-mem-durability-'));
  path = join(directory, 'memory.db');
});

afterEach(async () => {
  await writer?.kill();
  writer = undefined;
  for (const store of stores.splice(0)) store.close();
  rmSync(directory, { recursive: true, force: true });
});

function open(readonly = false): MemoryStore {
  const store = MemoryStore.open({ path, readonly });
  stores.push(store);
  return store;
}

describe('a writer process killed with SIGKILL', () => {
  it('loses nothing committed and keeps nothing of the open transaction', async () => {
    writer = startWriter(path, 'hold');
    await writer.waitFor((lines) => lines.includes('in-transaction'));
    await writer.kill();
    const store = open();
    expect(store.database.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(
      store
        .recentEpisodes({ limit: 100 })
        .map((e) => e.id)
        .sort(),
    ).toEqual(Array.from({ length: 20 }, (_, i) => `e${i}`).sort());
    expect(store.stats().nodes).toBe(0);
    expect(store.searchNodes({ text: 'transaction' })).toEqual([]);
  });

  it('keeps every commit it reported, each transaction whole, when killed mid-loop', async () => {
    writer = startWriter(path, 'loop');
    await writer.waitFor((lines) => lines.length >= 60);
    await writer.kill();
    const reported = writer.lines.map((line) => line.replace('committed ', ''));
    const store = open();
    expect(store.database.pragma('integrity_check', { simple: true })).toBe('ok');
    const episodes = new Set(
      store.database.prepare('SELECT id FROM episodes').pluck().all() as string[],
    );
    const nodes = new Set(store.database.prepare('SELECT id FROM nodes').pluck().all() as string[]);
    for (const id of reported) expect(episodes.has(id)).toBe(true);
    // Episode and node were written in one transaction: never one without the other.
    for (const id of episodes) expect(nodes.has(id.replace('e', 'n'))).toBe(true);
    expect(nodes.size).toBe(episodes.size);
    // The full-text index stayed in step with the table.
    expect(store.searchNodes({ text: 'written', limit: 100 }).length).toBe(
      Math.min(100, nodes.size),
    );
  });
});

describe('readers while a writer writes', () => {
  it('a second connection reads committed data while the first holds a write transaction', () => {
    const writerStore = open();
    writerStore.upsertNode({ id: 'committed', text: 'visible to readers' });
    const reader = open(true);
    writerStore.database.exec('BEGIN IMMEDIATE');
    writerStore.upsertNode({ id: 'pending', text: 'visible to readers only after commit' });
    expect(reader.searchNodes({ text: 'visible readers' }).map((h) => h.node.id)).toEqual([
      'committed',
    ]);
    writerStore.database.exec('COMMIT');
    expect(
      reader
        .searchNodes({ text: 'visible readers' })
        .map((h) => h.node.id)
        .sort(),
    ).toEqual(['committed', 'pending']);
  });

  it('reads never fail and only ever see more while another process commits', async () => {
    open().close();
    writer = startWriter(path, 'loop');
    await writer.waitFor((lines) => lines.length >= 5);
    const reader = open(true);
    let previous = 0;
    let reads = 0;
    while (writer.lines.length < 80) {
      expect(writer.child.exitCode, 'the writer process died').toBeNull();
      const count = reader.recentEpisodes({ limit: 100 }).length;
      const hits = reader.searchNodes({ text: 'written episode', limit: 100 }).length;
      expect(count).toBeGreaterThanOrEqual(Math.min(previous, 100));
      expect(hits).toBeGreaterThan(0);
      previous = count;
      reads += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(reads).toBeGreaterThan(0);
  });
});
