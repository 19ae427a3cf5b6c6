import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MEMORY_MIGRATIONS,
  MEMORY_SCHEMA_VERSION,
  migrateMemoryDatabase,
} from '../src/memory-migrations.js';
import { MemoryStore } from '../src/memory-store.js';
import { MemoryStoreError } from '../src/memory-store-error.js';

/**
 * SHA-256 of each released step's SQL. A released step is never edited, so a file written by that
 * release keeps opening: a change here means a new step belongs at the end instead.
 */
const RELEASED_STEP_HASHES = [
  'a1202e5dd6643c9151491b496282fadbe4254aaea2427939c7bd8a4b1bc4fee4',
  'f496a87e95163c9ba1813ae2608b43e01b43b5bd7b466e633aaaa49ba7195d2c',
  '229099a1bd26a1d2db417908a49d887364f9f30308dd03ffd86668ffc7e92af5',
];

let directory: string;
let path: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'cs-mem-migrate-'));
  path = join(directory, 'memory.db');
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** Writes a file as release 1 did: its one migration step, then rows. */
function writeRelease1File(): void {
  const database = new Database(path);
  database.pragma('journal_mode = WAL');
  migrateMemoryDatabase(database, MEMORY_MIGRATIONS.slice(0, 1));
  const insertNode = database.prepare(
    'INSERT INTO nodes (id, text, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
  );
  insertNode.run('alice', 'Alice maintains the billing service', 'person', 1000, 1000);
  insertNode.run('billing', 'The billing service runs nightly', 'project', 1000, 2000);
  for (let index = 0; index < 500; index += 1) {
    insertNode.run(`note-${index}`, `archived note ${index}`, 'fact', 1000 + index, 1000 + index);
  }
  database.exec(
    "INSERT INTO edges (from_seq, to_seq, relation, created_at) SELECT a.seq, b.seq, 'maintains', 3000 FROM nodes a, nodes b WHERE a.id = 'alice' AND b.id = 'billing'",
  );
  database
    .prepare(
      'INSERT INTO episodes (id, session_id, summary, tool_calls, started_at, ended_at) VALUES (?, ?, ?, ?, ?, ?)',
    )
    .run(
      'ep-1',
      'session-a',
      'Checked the billing logs',
      '[{"toolId":"read_file","outcome":"success"}]',
      5000,
      6000,
    );
  database.close();
}

describe('schema migrations', () => {
  it('keeps every released step exactly as it shipped', () => {
    expect(
      MEMORY_MIGRATIONS.slice(0, RELEASED_STEP_HASHES.length).map((step) =>
        createHash('sha256').update(step.sql).digest('hex'),
      ),
    ).toEqual(RELEASED_STEP_HASHES);
  });

  it('opens a release-1 file and migrates it to the current schema without losing rows', () => {
    writeRelease1File();
    const store = MemoryStore.open({ path, now: () => 10_000 });
    try {
      expect(store.migratedFrom).toBe(1);
      expect(store.schemaVersion).toBe(MEMORY_SCHEMA_VERSION);
      expect(store.database.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(store.stats()).toEqual({ nodes: 502, edges: 1, episodes: 1, macros: 0 });
      expect(store.getNode('alice')?.node).toEqual({
        id: 'alice',
        text: 'Alice maintains the billing service',
        role: 'person',
        weight: 1,
        aliases: [],
        createdAt: 1000,
        updatedAt: 1000,
      });
      expect(store.edgesOf('alice')).toEqual([
        { from: 'alice', to: 'billing', relation: 'maintains', createdAt: 3000 },
      ]);
      expect(store.recentEpisodes()).toEqual([
        {
          id: 'ep-1',
          sessionId: 'session-a',
          summary: 'Checked the billing logs',
          toolCalls: [{ toolId: 'read_file', outcome: 'success' }],
          startedAt: 5000,
          endedAt: 6000,
        },
      ]);
      // The rebuilt full-text index covers the old rows.
      expect(
        store
          .searchNodes({ text: 'billing' })
          .map((hit) => hit.node.id)
          .sort(),
      ).toEqual(['alice', 'billing']);
      expect(store.searchNodes({ text: 'archived', limit: 100 })).toHaveLength(100);
      // Features of later versions work on the migrated file.
      store.upsertNode({ id: 'person:alice', text: 'Alice', previousIds: ['alice'] });
      expect(store.searchNodes({ text: 'alice' })[0]).toMatchObject({
        matchedBy: 'alias',
        node: { id: 'person:alice' },
      });
      store.recordMacro({ name: 'm', steps: [{ tool: 'get_time', args: {} }] });
      expect(store.findMacros({ text: 'get_time' })).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  it('migrates one step at a time from any intermediate version', () => {
    const database = new Database(path);
    migrateMemoryDatabase(database, MEMORY_MIGRATIONS.slice(0, 2));
    database
      .prepare(
        'INSERT INTO nodes (id, text, role, weight, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run('heavy', 'weighted node', 'fact', 7, 1, 1);
    expect(database.pragma('user_version', { simple: true })).toBe(2);
    database.close();
    const store = MemoryStore.open({ path });
    try {
      expect(store.migratedFrom).toBe(2);
      expect(store.searchNodes({ text: 'weighted' })[0]?.node.weight).toBe(7);
    } finally {
      store.close();
    }
  });

  it('opening an up-to-date file again changes nothing', () => {
    MemoryStore.open({ path }).close();
    const store = MemoryStore.open({ path });
    expect(store.migratedFrom).toBe(MEMORY_SCHEMA_VERSION);
    store.close();
  });

  it('refuses a file from a newer release and leaves it untouched', () => {
    const database = new Database(path);
    database.exec('CREATE TABLE future (x); PRAGMA user_version = 99;');
    database.close();
    const before = readFileSync(path);
    expect(() => MemoryStore.open({ path })).toThrow(MemoryStoreError);
    try {
      MemoryStore.open({ path });
    } catch (error) {
      expect((error as MemoryStoreError).code).toBe('SCHEMA_TOO_NEW');
      expect((error as Error).message).toBe(
        `the memory database has schema version 99, newer than this release understands (${MEMORY_SCHEMA_VERSION}); upgrade @toolsys/platform-cs-mem`,
      );
    }
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('refuses to open an old file read-only, asking for a read-write open first', () => {
    writeRelease1File();
    expect(() => MemoryStore.open({ path, readonly: true })).toThrow(
      `a read-only memory database must have schema version ${MEMORY_SCHEMA_VERSION}; found 1. Open it once read-write to migrate it.`,
    );
  });
});
