// What callers give a MemoryStore: its open options, the nodes, edges, episodes and macros to
// record, and the queries with their results.
import type {
  EpisodeToolCall,
  MacroParam,
  MacroStep,
  MemoryEdge,
  MemoryNode,
} from './memory-model.js';

/** Options for {@link MemoryStore.open}. */
export interface MemoryStoreOptions {
  /** Database file path, or `:memory:` for a private in-memory database. */
  path: string;
  /**
   * Open read-only, e.g. a reader beside a writer process. The file must exist with the current
   * schema. Default false.
   */
  readonly?: boolean;
  /** Clock in ms since the epoch, for timestamps and recency ranking. Default `Date.now`. */
  now?: () => number;
  /** How long a write waits for another connection's write lock, in ms. Default 5000. */
  busyTimeoutMs?: number;
  /**
   * Age at which recency halves a node's rank boost, in ms. Recency only nudges the text score:
   * its factor runs from 1 (just updated) down towards 0.5. Default 30 days.
   */
  recencyHalfLifeMs?: number;
}

/** A node to create or update. */
export interface NodeInput {
  /** The node's id (at most 200 characters). Writing to an old aliased id updates the node it moved to. */
  id: string;
  /** The remembered text (at most 100 000 characters). */
  text: string;
  /** Kind of node. Default `fact` for new nodes; unchanged for existing ones when absent. */
  role?: string;
  /** Importance, ≥ 0. Default 1 for new nodes; unchanged when absent. */
  weight?: number;
  /**
   * Ids this node was known by before (an id migration). A node still stored under one of them is
   * renamed to `id` (or merged into it, edges included); each old id stays as an alias that still
   * finds the node.
   */
  previousIds?: readonly string[];
}

/** A link to create between two nodes (ids or aliases). */
export interface EdgeInput {
  /** Id or alias of the node the edge starts at. */
  from: string;
  /** Id or alias of the node the edge ends at. */
  to: string;
  /** What the link means (`works_on`). */
  relation: string;
}

/** An episode to record. */
export interface EpisodeInput {
  /** Unique id; generated when absent. */
  id?: string;
  /** The agent session. */
  sessionId: string;
  /** What happened, in one or two sentences. */
  summary: string;
  /** The tool calls it held, in order. Default none. */
  toolCalls?: readonly EpisodeToolCall[];
  /** Start time in ms since the epoch. Default now. */
  startedAt?: number;
  /** End time in ms since the epoch. Default `startedAt`. */
  endedAt?: number;
}

/** A macro to record (created, or replaced by name). */
export interface MacroInput {
  /** Unique name: letters, digits, `_`, `.`, `-` (at most 100). */
  name: string;
  /** What it does. Default empty. */
  description?: string;
  /** Declared parameters; every `{param}` placeholder in the steps must be declared. */
  params?: readonly MacroParam[];
  /** The steps (1 to 16). */
  steps: readonly MacroStep[];
  /** Counts this recording as a successful run, a failed one, or neither. Default `success`. */
  outcome?: 'success' | 'failure' | 'none';
}

/** A node search. */
export interface NodeSearchQuery {
  /** Words (plain syntax) or an FTS5 query; an exact node id or old alias also finds the node. */
  text: string;
  /** Only nodes with one of these roles. */
  roles?: readonly string[];
  /** Most hits returned (1–100). Default 10. */
  limit?: number;
  /** How `text` is read: `plain` words (default) or `fts5` syntax. */
  syntax?: 'plain' | 'fts5';
  /** In plain syntax, whether `all` words (default) or `any` must occur. */
  match?: 'all' | 'any';
  /** Also return up to this many edges per hit (0–20). Default 0. */
  edgesPerHit?: number;
}

/** One search hit. */
export interface NodeSearchHit {
  /** The node. */
  readonly node: MemoryNode;
  /** Higher is better; comparable within one search only. */
  readonly score: number;
  /** Matching passage with hits in `[brackets]`. */
  readonly snippet: string;
  /** How it matched: its exact id, one of its old ids, or the full-text index. */
  readonly matchedBy: 'id' | 'alias' | 'text';
  /** The old id the query named, when it matched by alias. */
  readonly resolvedFrom?: string;
  /** Edges touching the node, when asked for. */
  readonly edges?: readonly MemoryEdge[];
}

/** An episode query. */
export interface EpisodeQuery {
  /** Only episodes that started at or after this time (ms since the epoch). */
  since?: number;
  /** Only episodes that started at or before this time (ms since the epoch). */
  until?: number;
  /** Only this session. */
  sessionId?: string;
  /** Most episodes returned, newest first (1–100). Default 10. */
  limit?: number;
}

/** A macro query: by exact name, by text, or both (name hits first). */
export interface MacroQuery {
  /** Exact name, case-insensitive. */
  name?: string;
  /** Words matched against names, descriptions and tool ids (any word). */
  text?: string;
  /** Most macros returned (1–20). Default 3. */
  limit?: number;
}
