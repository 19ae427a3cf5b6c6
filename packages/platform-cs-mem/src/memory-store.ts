import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { buildFtsQuery } from './build-fts-query.js';
import {
  assertSchemaNotNewer,
  MEMORY_SCHEMA_VERSION,
  migrateMemoryDatabase,
  readSchemaVersion,
} from './memory-migrations.js';
import type {
  EpisodeToolCall,
  MemoryEdge,
  MemoryEpisode,
  MemoryMacro,
  MemoryNode,
} from './memory-model.js';
import {
  type EpisodeRow,
  type MacroRow,
  macroFromRow,
  type NodeRow,
  nodeFromRow,
} from './memory-rows.js';
import { MemoryStoreError } from './memory-store-error.js';
import type {
  EdgeInput,
  EpisodeInput,
  EpisodeQuery,
  MacroInput,
  MacroQuery,
  MemoryStoreOptions,
  NodeInput,
  NodeSearchHit,
  NodeSearchQuery,
} from './memory-store-inputs.js';
import {
  MACRO_NAME,
  MAX_ID_LENGTH,
  MAX_TEXT_LENGTH,
  requireLimit,
  requireText,
  requireWeight,
  validateParams,
  validateSteps,
} from './memory-validation.js';

const DAY_MS = 86_400_000;
type DatabaseConstructor = typeof Database;

let loadedDatabase: DatabaseConstructor | undefined;

/**
 * better-sqlite3, loaded on the first open: importing this package must not load the native
 * module. A synchronous require keeps {@link MemoryStore.open} synchronous.
 */
function sqlite(): DatabaseConstructor {
  loadedDatabase ??= createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;
  return loadedDatabase;
}

/**
 * Cognitive memory on one SQLite file: semantic nodes with full-text search, edges, episodes and
 * macros. WAL journaling lets readers work while a writer writes; every write is one transaction,
 * so a killed process loses nothing that was committed. One instance per connection; not shared
 * across threads.
 */
export class MemoryStore {
  /** The underlying connection (for hosts that add their own tables, and for tests). */
  readonly database: Database.Database;
  /** The file path given at open. */
  readonly path: string;
  /** The schema version found before migrating (0 for a new file). */
  readonly migratedFrom: number;
  readonly #now: () => number;
  readonly #halfLifeMs: number;
  readonly #statements = new Map<string, Database.Statement>();

  private constructor(
    database: Database.Database,
    options: MemoryStoreOptions,
    migratedFrom: number,
  ) {
    this.database = database;
    this.path = options.path;
    this.migratedFrom = migratedFrom;
    this.#now = options.now ?? Date.now;
    this.#halfLifeMs = options.recencyHalfLifeMs ?? 30 * DAY_MS;
  }

  /**
   * Opens (creating when needed) and migrates a memory database. Throws {@link MemoryStoreError}
   * `SCHEMA_TOO_NEW` for a file written by a newer release.
   */
  static open(options: MemoryStoreOptions): MemoryStore {
    const readonly = options.readonly === true;
    const SqliteDatabase = sqlite();
    const database = new SqliteDatabase(options.path, { readonly, fileMustExist: readonly });
    try {
      database.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
      database.pragma('foreign_keys = ON');
      let migratedFrom: number;
      if (readonly) {
        migratedFrom = readSchemaVersion(database);
        if (migratedFrom !== MEMORY_SCHEMA_VERSION) {
          throw new MemoryStoreError(
            migratedFrom > MEMORY_SCHEMA_VERSION ? 'SCHEMA_TOO_NEW' : 'INVALID_INPUT',
            `a read-only memory database must have schema version ${MEMORY_SCHEMA_VERSION}; found ${migratedFrom}. Open it once read-write to migrate it.`,
          );
        }
      } else {
        // Refuse a newer file before any pragma writes to it.
        assertSchemaNotNewer(readSchemaVersion(database));
        if (options.path !== ':memory:' && options.path !== '') {
          database.pragma('journal_mode = WAL');
        }
        // FULL: a commit is on disk before it returns, so even power loss keeps committed writes.
        database.pragma('synchronous = FULL');
        migratedFrom = migrateMemoryDatabase(database);
      }
      return new MemoryStore(database, options, migratedFrom);
    } catch (error) {
      database.close();
      throw error;
    }
  }

  /** The schema version of the open database. */
  get schemaVersion(): number {
    return readSchemaVersion(this.database);
  }

  /** Whether the connection is still open. */
  get isOpen(): boolean {
    return this.database.open;
  }

  /** Runs `work` in one transaction: all its writes commit together or not at all. */
  transaction<T>(work: () => T): T {
    return this.database.transaction(work).immediate();
  }

  /**
   * Creates or updates a node. With `previousIds` it migrates old ids: a node stored under an old
   * id is renamed (or merged into the node already under `id`), and the old id stays as an alias.
   */
  upsertNode(input: NodeInput): MemoryNode {
    const id = requireText(input.id, 'id', MAX_ID_LENGTH);
    const text = requireText(input.text, 'text', MAX_TEXT_LENGTH, { trim: false });
    const role = input.role === undefined ? undefined : requireText(input.role, 'role', 64);
    const weight = input.weight === undefined ? undefined : requireWeight(input.weight);
    const previousIds = [...new Set(input.previousIds ?? [])]
      .map((old, index) => requireText(old, `previousIds.${index}`, MAX_ID_LENGTH))
      .filter((old) => old !== id);
    return this.transaction(() => {
      const now = this.#now();
      let seq = this.#seqOfId(id) ?? this.#seqOfAlias(id);
      for (const old of previousIds) {
        const oldSeq = this.#seqOfId(old);
        if (oldSeq === undefined || oldSeq === seq) continue;
        if (seq === undefined) {
          this.#sql('UPDATE nodes SET id = ? WHERE seq = ?').run(id, oldSeq);
          seq = oldSeq;
        } else {
          this.#mergeNode(oldSeq, seq);
        }
      }
      if (seq === undefined) {
        const inserted = this.#sql(
          'INSERT INTO nodes (id, text, role, weight, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
        ).run(id, text, role ?? 'fact', weight ?? 1, now, now);
        seq = Number(inserted.lastInsertRowid);
      } else {
        this.#sql(
          'UPDATE nodes SET text = ?, role = coalesce(?, role), weight = coalesce(?, weight), updated_at = ? WHERE seq = ?',
        ).run(text, role ?? null, weight ?? null, now, seq);
      }
      const addAlias = this.#sql(
        'INSERT INTO node_aliases (alias, node_seq, migrated_at) VALUES (?, ?, ?) ON CONFLICT (alias) DO UPDATE SET node_seq = excluded.node_seq, migrated_at = excluded.migrated_at',
      );
      // An alias that moves away from another node must leave that node's searchable aliases too.
      const formerOwners = new Set<number>();
      for (const old of previousIds) {
        const owner = this.#seqOfAlias(old);
        if (owner !== undefined && owner !== seq) formerOwners.add(owner);
        addAlias.run(old, seq, now);
      }
      if (previousIds.length > 0) this.#refreshAliases(seq);
      for (const owner of formerOwners) this.#refreshAliases(owner);
      return this.#nodeBySeq(seq) as MemoryNode;
    });
  }

  /** Links two nodes (by id or alias); linking twice is a no-op. NOT_FOUND when either is missing. */
  link(input: EdgeInput): MemoryEdge {
    const relation = requireText(input.relation, 'relation', 100);
    return this.transaction(() => {
      const from = this.#requireSeq(input.from, 'from');
      const to = this.#requireSeq(input.to, 'to');
      this.#sql(
        'INSERT INTO edges (from_seq, to_seq, relation, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
      ).run(from, to, relation, this.#now());
      const row = this.#sql(
        `SELECT f.id AS "from", t.id AS "to", e.relation, e.created_at AS createdAt FROM edges e
           JOIN nodes f ON f.seq = e.from_seq JOIN nodes t ON t.seq = e.to_seq
           WHERE e.from_seq = ? AND e.to_seq = ? AND e.relation = ?`,
      ).get(from, to, relation) as MemoryEdge;
      return { ...row };
    });
  }

  /** The node under this id, or under this old alias. */
  getNode(idOrAlias: string): { node: MemoryNode; resolvedFrom?: string } | undefined {
    const direct = this.#seqOfId(idOrAlias);
    if (direct !== undefined) return { node: this.#nodeBySeq(direct) as MemoryNode };
    const aliased = this.#seqOfAlias(idOrAlias);
    if (aliased === undefined) return undefined;
    return { node: this.#nodeBySeq(aliased) as MemoryNode, resolvedFrom: idOrAlias };
  }

  /** Edges touching a node (either direction), newest first. */
  edgesOf(idOrAlias: string, limit = 20): MemoryEdge[] {
    const seq = this.#seqOfId(idOrAlias) ?? this.#seqOfAlias(idOrAlias);
    if (seq === undefined) return [];
    return this.#edgesOfSeq(seq, limit);
  }

  /**
   * Full-text search over node ids, texts and aliases, ranked by BM25, weight and recency. An exact
   * id or old alias in `text` puts that node first. Throws {@link MemoryStoreError} INVALID_QUERY
   * for an FTS5 syntax error or out-of-range options.
   */
  searchNodes(query: NodeSearchQuery): NodeSearchHit[] {
    const limit = requireLimit(query.limit ?? 10, 100, 'limit');
    const edgesPerHit = requireLimit(query.edgesPerHit ?? 0, 20, 'edgesPerHit', 0);
    const match = buildFtsQuery(query.text, {
      ...(query.syntax ? { syntax: query.syntax } : {}),
      ...(query.match ? { match: query.match } : {}),
    });
    const roles = query.roles && query.roles.length > 0 ? JSON.stringify(query.roles) : null;
    const hits: NodeSearchHit[] = [];
    const seen = new Set<number>();
    const exact = query.text.trim();
    const exactSeq = this.#seqOfId(exact);
    const aliasSeq = exactSeq === undefined ? this.#seqOfAlias(exact) : undefined;
    const directSeq = exactSeq ?? aliasSeq;
    if (directSeq !== undefined) {
      const node = this.#nodeBySeq(directSeq) as MemoryNode;
      if (roles === null || query.roles?.includes(node.role)) {
        seen.add(directSeq);
        hits.push({
          node,
          score: Number.POSITIVE_INFINITY,
          snippet: clip(node.text, 200),
          matchedBy: exactSeq === undefined ? 'alias' : 'id',
          ...(exactSeq === undefined ? { resolvedFrom: exact } : {}),
        });
      }
    }
    let ranked: { seq: number; score: number }[];
    try {
      ranked = this.#sql(
        `SELECT n.seq AS seq,
             -bm25(node_fts, 4.0, 1.0, 4.0)
               * (1.0 + ln(1.0 + max(n.weight, 0.0)))
               * (0.5 + 0.5 * @half / (@half + max(@now - n.updated_at, 0))) AS score
           FROM node_fts JOIN nodes n ON n.seq = node_fts.rowid
           WHERE node_fts MATCH @match
             AND (@roles IS NULL OR n.role IN (SELECT value FROM json_each(@roles)))
           ORDER BY score DESC, n.seq DESC
           LIMIT @limit`,
      ).all({ match, roles, half: this.#halfLifeMs, now: this.#now(), limit }) as {
        seq: number;
        score: number;
      }[];
    } catch (error) {
      throw asQueryError(error);
    }
    const fromText = ranked.filter(({ seq }) => !seen.has(seq)).slice(0, limit - hits.length);
    const snippets = this.#snippets(
      match,
      fromText.map(({ seq }) => seq),
    );
    for (const { seq, score } of fromText) {
      const node = this.#nodeBySeq(seq) as MemoryNode;
      hits.push({
        node,
        score,
        snippet: snippets.get(seq) ?? clip(node.text, 200),
        matchedBy: 'text',
      });
    }
    if (edgesPerHit === 0) return hits;
    return hits.map((hit) => {
      const seq = this.#seqOfId(hit.node.id) as number;
      return { ...hit, edges: this.#edgesOfSeq(seq, edgesPerHit) };
    });
  }

  /** Records an episode. INVALID_INPUT for a duplicate id or a missing field. */
  recordEpisode(input: EpisodeInput): MemoryEpisode {
    const id = input.id === undefined ? randomUUID() : requireText(input.id, 'id', MAX_ID_LENGTH);
    const sessionId = requireText(input.sessionId, 'sessionId', MAX_ID_LENGTH);
    const summary = requireText(input.summary, 'summary', MAX_TEXT_LENGTH);
    const toolCalls = [...(input.toolCalls ?? [])];
    const startedAt = input.startedAt ?? this.#now();
    const endedAt = input.endedAt ?? startedAt;
    if (!Number.isFinite(startedAt) || !Number.isFinite(endedAt) || endedAt < startedAt) {
      throw new MemoryStoreError('INVALID_INPUT', 'endedAt: must be a time at or after startedAt', {
        field: 'endedAt',
      });
    }
    return this.transaction(() => {
      const result = this.#sql(
        'INSERT INTO episodes (id, session_id, summary, tool_calls, started_at, ended_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
      ).run(id, sessionId, summary, JSON.stringify(toolCalls), startedAt, endedAt);
      if (result.changes === 0) {
        throw new MemoryStoreError('INVALID_INPUT', `id: episode "${id}" already exists`, {
          field: 'id',
        });
      }
      return { id, sessionId, summary, toolCalls, startedAt, endedAt };
    });
  }

  /** Episodes newest first, filtered by time window and session. */
  recentEpisodes(query: EpisodeQuery = {}): MemoryEpisode[] {
    const limit = requireLimit(query.limit ?? 10, 100, 'limit');
    const rows = this.#sql(
      `SELECT id, session_id, summary, tool_calls, started_at, ended_at FROM episodes
         WHERE (@since IS NULL OR started_at >= @since)
           AND (@until IS NULL OR started_at <= @until)
           AND (@session IS NULL OR session_id = @session)
         ORDER BY started_at DESC, seq DESC LIMIT @limit`,
    ).all({
      since: query.since ?? null,
      until: query.until ?? null,
      session: query.sessionId ?? null,
      limit,
    }) as EpisodeRow[];
    return rows.map((row) => ({
      id: row.id,
      sessionId: row.session_id,
      summary: row.summary,
      toolCalls: JSON.parse(row.tool_calls) as EpisodeToolCall[],
      startedAt: row.started_at,
      endedAt: row.ended_at,
    }));
  }

  /**
   * Records a macro: creates it, or replaces its description, params and steps by name, and counts
   * the run. INVALID_INPUT for a bad name, too many steps, or an undeclared `{param}` placeholder.
   */
  recordMacro(input: MacroInput): MemoryMacro {
    const name = requireText(input.name, 'name', 100);
    if (!MACRO_NAME.test(name)) {
      throw new MemoryStoreError(
        'INVALID_INPUT',
        `name: "${name}" must start with a letter or digit and hold only letters, digits, _ . -`,
        { field: 'name' },
      );
    }
    const params = validateParams(input.params ?? []);
    const steps = validateSteps(input.steps, params);
    const description = input.description ?? '';
    const outcome = input.outcome ?? 'success';
    const success = outcome === 'success' ? 1 : 0;
    const failure = outcome === 'failure' ? 1 : 0;
    return this.transaction(() => {
      const now = this.#now();
      const usedAt = outcome === 'none' ? null : now;
      this.#sql(
        `INSERT INTO macros (name, description, params, steps, tool_ids, success_count, failure_count,
             created_at, updated_at, last_used_at)
           VALUES (@name, @description, @params, @steps, @toolIds, @success, @failure, @now, @now, @usedAt)
           ON CONFLICT (name) DO UPDATE SET description = excluded.description,
             params = excluded.params, steps = excluded.steps, tool_ids = excluded.tool_ids,
             success_count = success_count + excluded.success_count,
             failure_count = failure_count + excluded.failure_count,
             updated_at = excluded.updated_at,
             last_used_at = coalesce(excluded.last_used_at, last_used_at)`,
      ).run({
        name,
        description,
        params: JSON.stringify(params),
        steps: JSON.stringify(steps),
        toolIds: steps.map((step) => step.tool).join(' '),
        success,
        failure,
        now,
        usedAt,
      });
      const row = this.#sql('SELECT * FROM macros WHERE name = ?').get(name) as MacroRow;
      return macroFromRow(row);
    });
  }

  /** Counts one more run of an existing macro. NOT_FOUND when no macro has this name. */
  recordMacroRun(name: string, outcome: 'success' | 'failure'): MemoryMacro {
    return this.transaction(() => {
      const result = this.#sql(
        `UPDATE macros SET success_count = success_count + ?, failure_count = failure_count + ?,
             last_used_at = ? WHERE name = ?`,
      ).run(outcome === 'success' ? 1 : 0, outcome === 'failure' ? 1 : 0, this.#now(), name);
      if (result.changes === 0) {
        throw new MemoryStoreError('NOT_FOUND', `name: no macro named "${name}"`, {
          field: 'name',
        });
      }
      return macroFromRow(this.#sql('SELECT * FROM macros WHERE name = ?').get(name) as MacroRow);
    });
  }

  /**
   * Finds macros by exact name (first) and by words in names, descriptions and tool ids, ranked by
   * text relevance and success count.
   */
  findMacros(query: MacroQuery): MemoryMacro[] {
    const limit = requireLimit(query.limit ?? 3, 20, 'limit');
    const found: MemoryMacro[] = [];
    const seen = new Set<number>();
    if (query.name !== undefined && query.name.trim() !== '') {
      const row = this.#sql('SELECT * FROM macros WHERE name = ?').get(query.name.trim()) as
        | MacroRow
        | undefined;
      if (row) {
        seen.add(row.seq);
        found.push(macroFromRow(row));
      }
    }
    if (query.text !== undefined && query.text.trim() !== '' && found.length < limit) {
      const match = buildFtsQuery(query.text, { match: 'any' });
      const rows = this.#sql(
        `SELECT m.* FROM macro_fts JOIN macros m ON m.seq = macro_fts.rowid
           WHERE macro_fts MATCH ?
           ORDER BY -bm25(macro_fts, 4.0, 1.0, 2.0) * (1.0 + ln(1.0 + m.success_count)) DESC
           LIMIT ?`,
      ).all(match, limit) as MacroRow[];
      for (const row of rows) {
        if (seen.has(row.seq) || found.length >= limit) continue;
        seen.add(row.seq);
        found.push(macroFromRow(row));
      }
    }
    return found;
  }

  /** Node, edge, episode and macro counts. */
  stats(): { nodes: number; edges: number; episodes: number; macros: number } {
    const count = (table: string): number =>
      Number(this.#sql(`SELECT count(*) FROM ${table}`).pluck().get());
    return {
      nodes: count('nodes'),
      edges: count('edges'),
      episodes: count('episodes'),
      macros: count('macros'),
    };
  }

  /** Closes the connection; later calls throw. Closing twice is a no-op. */
  close(): void {
    if (!this.database.open) return;
    if (!this.database.readonly) {
      try {
        this.database.pragma('optimize');
      } catch {
        // Optimisation is best effort; closing must not fail because of it.
      }
    }
    this.database.close();
  }

  /** A prepared statement, compiled once per connection. */
  #sql(source: string): Database.Statement {
    let statement = this.#statements.get(source);
    if (statement === undefined) {
      statement = this.database.prepare(source);
      this.#statements.set(source, statement);
    }
    return statement;
  }

  #seqOfId(id: string): number | undefined {
    const seq = this.#sql('SELECT seq FROM nodes WHERE id = ?').pluck().get(id);
    return seq === undefined ? undefined : Number(seq);
  }

  #seqOfAlias(alias: string): number | undefined {
    const seq = this.#sql('SELECT node_seq FROM node_aliases WHERE alias = ?').pluck().get(alias);
    return seq === undefined ? undefined : Number(seq);
  }

  #requireSeq(idOrAlias: string, field: string): number {
    const id = requireText(idOrAlias, field, MAX_ID_LENGTH);
    const seq = this.#seqOfId(id) ?? this.#seqOfAlias(id);
    if (seq === undefined) {
      throw new MemoryStoreError('NOT_FOUND', `${field}: no node with id "${id}"`, { field });
    }
    return seq;
  }

  #nodeBySeq(seq: number): MemoryNode | undefined {
    const row = this.#sql(
      'SELECT seq, id, text, role, weight, aliases, created_at, updated_at FROM nodes WHERE seq = ?',
    ).get(seq) as NodeRow | undefined;
    return row === undefined ? undefined : nodeFromRow(row);
  }

  #edgesOfSeq(seq: number, limit: number): MemoryEdge[] {
    const rows = this.#sql(
      `SELECT f.id AS "from", t.id AS "to", e.relation AS relation, e.created_at AS createdAt
         FROM edges e JOIN nodes f ON f.seq = e.from_seq JOIN nodes t ON t.seq = e.to_seq
         WHERE e.from_seq = @seq OR e.to_seq = @seq
         ORDER BY e.created_at DESC LIMIT @limit`,
    ).all({ seq, limit }) as MemoryEdge[];
    return rows.map((row) => ({ ...row }));
  }

  #mergeNode(fromSeq: number, intoSeq: number): void {
    this.#sql(
      `INSERT INTO edges (from_seq, to_seq, relation, created_at)
         SELECT CASE WHEN from_seq = @from THEN @into ELSE from_seq END,
                CASE WHEN to_seq = @from THEN @into ELSE to_seq END, relation, created_at
         FROM edges WHERE (from_seq = @from OR to_seq = @from)
           AND NOT (from_seq IN (@from, @into) AND to_seq IN (@from, @into))
         ON CONFLICT DO NOTHING`,
    ).run({ from: fromSeq, into: intoSeq });
    this.#sql('UPDATE node_aliases SET node_seq = ? WHERE node_seq = ?').run(intoSeq, fromSeq);
    this.#sql('DELETE FROM nodes WHERE seq = ?').run(fromSeq);
  }

  #refreshAliases(seq: number): void {
    // An id is never its own alias (a node renamed back to an old id).
    this.#sql('DELETE FROM node_aliases WHERE alias = (SELECT id FROM nodes WHERE seq = ?)').run(
      seq,
    );
    const aliases = (
      this.#sql('SELECT alias FROM node_aliases WHERE node_seq = ? ORDER BY migrated_at, alias')
        .pluck()
        .all(seq) as string[]
    ).join(' ');
    // Only a real change rewrites the node's full-text entry.
    this.#sql('UPDATE nodes SET aliases = @aliases WHERE seq = @seq AND aliases <> @aliases').run({
      seq,
      aliases,
    });
  }

  #snippets(match: string, seqs: readonly number[]): Map<number, string> {
    const snippets = new Map<number, string>();
    if (seqs.length === 0) return snippets;
    const rows = this.#sql(
      `SELECT rowid AS seq, snippet(node_fts, 1, '[', ']', '…', 24) AS snippet FROM node_fts
         WHERE node_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
    ).all(match, JSON.stringify(seqs)) as { seq: number; snippet: string }[];
    for (const row of rows) snippets.set(Number(row.seq), row.snippet);
    return snippets;
  }
}

function asQueryError(error: unknown): unknown {
  if (error instanceof sqlite().SqliteError && error.code === 'SQLITE_ERROR') {
    return new MemoryStoreError(
      'INVALID_QUERY',
      `query: not a valid FTS5 query (${error.message})`,
      { field: 'query', cause: error },
    );
  }
  return error;
}

function clip(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
