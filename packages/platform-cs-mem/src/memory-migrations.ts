import type BetterSqlite3 from 'better-sqlite3';
import { MemoryStoreError } from './memory-store-error.js';

/** One step of the schema history: the version it produces and the SQL that gets there. */
export interface MemoryMigration {
  /** The schema version after this step (`PRAGMA user_version`). */
  readonly version: number;
  /** What the step adds, for logs and the README. */
  readonly summary: string;
  /** DDL and data moves, run inside one transaction together with the version bump. */
  readonly sql: string;
}

const NODE_FTS_TRIGGERS_V1 = `
CREATE TRIGGER nodes_ai AFTER INSERT ON nodes BEGIN
  INSERT INTO node_fts(rowid, id, text) VALUES (new.seq, new.id, new.text);
END;
CREATE TRIGGER nodes_ad AFTER DELETE ON nodes BEGIN
  INSERT INTO node_fts(node_fts, rowid, id, text) VALUES ('delete', old.seq, old.id, old.text);
END;
CREATE TRIGGER nodes_au AFTER UPDATE ON nodes BEGIN
  INSERT INTO node_fts(node_fts, rowid, id, text) VALUES ('delete', old.seq, old.id, old.text);
  INSERT INTO node_fts(rowid, id, text) VALUES (new.seq, new.id, new.text);
END;`;

const NODE_FTS_TRIGGERS_V2 = `
CREATE TRIGGER nodes_ai AFTER INSERT ON nodes BEGIN
  INSERT INTO node_fts(rowid, id, text, aliases) VALUES (new.seq, new.id, new.text, new.aliases);
END;
CREATE TRIGGER nodes_ad AFTER DELETE ON nodes BEGIN
  INSERT INTO node_fts(node_fts, rowid, id, text, aliases)
    VALUES ('delete', old.seq, old.id, old.text, old.aliases);
END;
CREATE TRIGGER nodes_au AFTER UPDATE OF id, text, aliases ON nodes BEGIN
  INSERT INTO node_fts(node_fts, rowid, id, text, aliases)
    VALUES ('delete', old.seq, old.id, old.text, old.aliases);
  INSERT INTO node_fts(rowid, id, text, aliases) VALUES (new.seq, new.id, new.text, new.aliases);
END;`;

/**
 * The schema history, oldest first. A released step is never edited: changes are new steps, so a
 * database written by any earlier release migrates forward without loss.
 */
export const MEMORY_MIGRATIONS: readonly MemoryMigration[] = [
  {
    version: 1,
    summary: 'semantic nodes with full-text search, edges, episodes',
    sql: `
CREATE TABLE nodes (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  text TEXT NOT NULL,
  role TEXT NOT NULL DEFAULT 'fact',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE edges (
  from_seq INTEGER NOT NULL REFERENCES nodes(seq) ON DELETE CASCADE,
  to_seq INTEGER NOT NULL REFERENCES nodes(seq) ON DELETE CASCADE,
  relation TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (from_seq, to_seq, relation)
) WITHOUT ROWID;
CREATE INDEX edges_to ON edges(to_seq);
CREATE TABLE episodes (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  session_id TEXT NOT NULL,
  summary TEXT NOT NULL,
  tool_calls TEXT NOT NULL DEFAULT '[]',
  started_at INTEGER NOT NULL,
  ended_at INTEGER NOT NULL
);
CREATE INDEX episodes_time ON episodes(started_at);
CREATE INDEX episodes_session ON episodes(session_id, started_at);
CREATE VIRTUAL TABLE node_fts USING fts5(
  id, text, content='nodes', content_rowid='seq', tokenize='unicode61 remove_diacritics 2'
);
${NODE_FTS_TRIGGERS_V1}`,
  },
  {
    version: 2,
    summary: 'node weights and id aliases left by migrations; aliases are searchable',
    sql: `
ALTER TABLE nodes ADD COLUMN weight REAL NOT NULL DEFAULT 1;
ALTER TABLE nodes ADD COLUMN aliases TEXT NOT NULL DEFAULT '';
CREATE INDEX nodes_role ON nodes(role, updated_at);
CREATE TABLE node_aliases (
  alias TEXT PRIMARY KEY,
  node_seq INTEGER NOT NULL REFERENCES nodes(seq) ON DELETE CASCADE,
  migrated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX node_aliases_node ON node_aliases(node_seq);
DROP TRIGGER nodes_ai;
DROP TRIGGER nodes_ad;
DROP TRIGGER nodes_au;
DROP TABLE node_fts;
CREATE VIRTUAL TABLE node_fts USING fts5(
  id, text, aliases, content='nodes', content_rowid='seq', tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO node_fts(node_fts) VALUES ('rebuild');
${NODE_FTS_TRIGGERS_V2}`,
  },
  {
    version: 3,
    summary: 'macros: named, parameterised tool-call sequences with success counts',
    sql: `
CREATE TABLE macros (
  seq INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  description TEXT NOT NULL DEFAULT '',
  params TEXT NOT NULL DEFAULT '[]',
  steps TEXT NOT NULL,
  tool_ids TEXT NOT NULL DEFAULT '',
  success_count INTEGER NOT NULL DEFAULT 0,
  failure_count INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  last_used_at INTEGER
);
CREATE VIRTUAL TABLE macro_fts USING fts5(
  name, description, tool_ids, content='macros', content_rowid='seq',
  tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER macros_ai AFTER INSERT ON macros BEGIN
  INSERT INTO macro_fts(rowid, name, description, tool_ids)
    VALUES (new.seq, new.name, new.description, new.tool_ids);
END;
CREATE TRIGGER macros_ad AFTER DELETE ON macros BEGIN
  INSERT INTO macro_fts(macro_fts, rowid, name, description, tool_ids)
    VALUES ('delete', old.seq, old.name, old.description, old.tool_ids);
END;
CREATE TRIGGER macros_au AFTER UPDATE OF name, description, tool_ids ON macros BEGIN
  INSERT INTO macro_fts(macro_fts, rowid, name, description, tool_ids)
    VALUES ('delete', old.seq, old.name, old.description, old.tool_ids);
  INSERT INTO macro_fts(rowid, name, description, tool_ids)
    VALUES (new.seq, new.name, new.description, new.tool_ids);
END;`,
  },
];

/** The schema version this code writes. */
export const MEMORY_SCHEMA_VERSION = MEMORY_MIGRATIONS[MEMORY_MIGRATIONS.length - 1]?.version ?? 0;

/**
 * Brings a database to {@link MEMORY_SCHEMA_VERSION}. Each step runs in its own immediate
 * transaction with its version bump, so a crash between steps leaves a consistent older version
 * that the next open continues from. Returns the version found before migrating.
 */
export function migrateMemoryDatabase(
  database: BetterSqlite3.Database,
  migrations: readonly MemoryMigration[] = MEMORY_MIGRATIONS,
): number {
  const found = readSchemaVersion(database);
  assertSchemaNotNewer(found, migrations[migrations.length - 1]?.version ?? 0);
  for (const migration of migrations) {
    if (migration.version <= found) continue;
    const step = database.transaction(() => {
      // Another process may have migrated while this one waited for the write lock.
      if (readSchemaVersion(database) >= migration.version) return;
      database.exec(migration.sql);
      database.pragma(`user_version = ${migration.version}`);
    });
    step.immediate();
  }
  return found;
}

/** The schema version stored in the database (0 for a new file). */
export function readSchemaVersion(database: BetterSqlite3.Database): number {
  return Number(database.pragma('user_version', { simple: true }));
}

/** Throws {@link MemoryStoreError} `SCHEMA_TOO_NEW` when `found` is beyond what this code knows. */
export function assertSchemaNotNewer(found: number, latest = MEMORY_SCHEMA_VERSION): void {
  if (found > latest) {
    throw new MemoryStoreError(
      'SCHEMA_TOO_NEW',
      `the memory database has schema version ${found}, newer than this release understands (${latest}); upgrade @toolsys/platform-cs-mem`,
    );
  }
}
