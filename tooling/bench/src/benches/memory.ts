import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { createMemoryTools, MemoryStore } from '@toolsys/platform-cs-mem';
import { removeOnExit } from '../cleanup.js';
import { type Bench, type BenchReport, formatRatio } from '../report.js';

const TARGET = 50;
const ENTITY_TYPES = ['person', 'project', 'service', 'document', 'meeting', 'device'];
const OBSERVATIONS_PER_ENTITY = 3;
const WORDS_PER_OBSERVATION = 8;
const VOCABULARY_SIZE = 3_000;
/**
 * Zipf ranks of the query words, common to rare. The most common word (rank 25) is in about one
 * entity in ten; stop-word-like ranks are left out because server-memory's answer to them is tens
 * of MB, which the SDK client's stdio buffer takes minutes to read (it re-concatenates per chunk).
 */
const QUERY_RANKS = [25, 100, 400, 1_500, 2_900];
const OUR_LIMIT = 10;

interface Entity {
  name: string;
  entityType: string;
  observations: string[];
}

interface Graph {
  entities: Entity[];
  relations: { from: string; to: string; relationType: string }[];
  queries: string[];
  warmup: string;
}

interface SideFigures {
  /** Per-query latency in ms, in query order. */
  latenciesMs: number[];
  meanMs: number;
  medianMs: number;
  /** Results returned per query. */
  results: number[];
  /** Whether the results came back ordered by relevance. */
  ranks: boolean;
}

interface SizeFigures {
  entities: number;
  fileBytes: number;
  ours: SideFigures;
  theirs: SideFigures;
  /** Whether both sides found the same number of matching entities for each word query. */
  matchesAgree: boolean;
  /** Their median latency over ours (the headline). */
  speedup: number;
  /** Their mean latency over ours. */
  speedupMean: number;
  setupMs: { generate: number; oursImport: number; theirsStart: number };
}

/**
 * `pnpm bench memory`: `memory_search_nodes` (through the executor, SQLite FTS5) against
 * `@modelcontextprotocol/server-memory`'s `search_nodes` (the real server over stdio) on the same
 * generated graph, with the same queries, one run each after one warm-up call per side.
 */
export const memoryBench: Bench = {
  name: 'memory',
  summary: 'memory_search_nodes vs @modelcontextprotocol/server-memory search_nodes',
  async run({ quick }): Promise<BenchReport> {
    const sizes = quick ? [1_000, 5_000] : [10_000, 100_000];
    const figures: SizeFigures[] = [];
    for (const size of sizes) figures.push(await runSize(size));
    const largest = figures[figures.length - 1] as SizeFigures;
    const bySize = (entities: number): number | null =>
      figures.find((entry) => entry.entities === entities)?.speedup ?? null;
    // A quick run is a smoke test: its graphs are too small to judge the target, which is set at 100k.
    const met = quick ? largest.matchesAgree : largest.speedup >= TARGET && largest.matchesAgree;
    const lines = [
      `graph: entities with ${OBSERVATIONS_PER_ENTITY} observations of ${WORDS_PER_OBSERVATION} words (Zipf vocabulary of ${VOCABULARY_SIZE}), one relation per entity`,
      `queries: ${QUERY_RANKS.length} words from common to rare + one entity name; one run after a warm-up call`,
      `ours: memory_search_nodes in process through PipelineToolExecutor, limit ${OUR_LIMIT}, BM25-ranked`,
      'theirs: search_nodes over stdio (real server; reloads its JSONL file per call, returns every match unranked)',
      ...figures.flatMap((entry) => [
        `-- ${entry.entities.toLocaleString('en-US')} entities (${(entry.fileBytes / 1e6).toFixed(1)} MB JSONL)`,
        `   ours   mean ${entry.ours.meanMs.toFixed(2)} ms, median ${entry.ours.medianMs.toFixed(2)} ms, results ${entry.ours.results.join('/')}, ranked: ${entry.ours.ranks}`,
        `   theirs mean ${entry.theirs.meanMs.toFixed(2)} ms, median ${entry.theirs.medianMs.toFixed(2)} ms, results ${entry.theirs.results.join('/')}, ranked: ${entry.theirs.ranks}`,
        `   match counts agree: ${entry.matchesAgree}; speedup: ${formatRatio(entry.speedup)}x median, ${formatRatio(entry.speedupMean)}x mean`,
        `   setup: generate ${entry.setupMs.generate.toFixed(0)} ms, our import ${entry.setupMs.oursImport.toFixed(0)} ms, their start ${entry.setupMs.theirsStart.toFixed(0)} ms`,
      ]),
    ];
    return {
      name: 'memory',
      target: quick
        ? `smoke run: both sides find the same matches (the ${TARGET}x target is judged at 100,000 entities)`
        : `median speedup at 100,000 entities >= ${TARGET}`,
      met,
      lines,
      json: {
        speedup_10k: bySize(10_000),
        speedup_100k: bySize(100_000),
        speedup_largest: largest.speedup,
        ours_ranks: figures.every((entry) => entry.ours.ranks),
        theirs_ranks: figures.some((entry) => entry.theirs.ranks),
        quick,
        sizes: figures,
      },
    };
  },
};

async function runSize(size: number): Promise<SizeFigures> {
  const directory = removeOnExit(mkdtempSync(join(tmpdir(), 'toolsys-bench-memory-')));
  let store: MemoryStore | undefined;
  let client: Client | undefined;
  let serverLog = '';
  try {
    const generateStarted = performance.now();
    const graph = generateGraph(size, 42);
    const jsonl = toJsonl(graph);
    const file = join(directory, 'memory.jsonl');
    writeFileSync(file, jsonl);
    const generate = performance.now() - generateStarted;

    const importStarted = performance.now();
    store = MemoryStore.open({ path: join(directory, 'memory.db') });
    importGraph(store, graph);
    const oursImport = performance.now() - importStarted;
    const registry = new ToolRegistry();
    registry.registerAll(createMemoryTools({ store }));
    const executor = createToolExecutor({ registry });

    const startStarted = performance.now();
    client = new Client({ name: 'toolsys-bench', version: '0.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [serverMemoryEntry()],
      env: { ...getDefaultEnvironment(), MEMORY_FILE_PATH: file },
      stderr: 'pipe',
      // Their answer to a common word at 100k entities is tens of MB, over the SDK's 10 MB default.
      maxBufferSize: 1024 * 1024 * 1024,
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      serverLog = (serverLog + chunk.toString()).slice(-2_000);
    });
    await client.connect(transport);
    const theirsStart = performance.now() - startStarted;

    const order = new Map(graph.entities.map((entity, index) => [entity.name, index]));
    const activeClient = client;
    const ours = await measure(graph, async (query) => {
      const result = await executor.execute('memory_search_nodes', { query, limit: OUR_LIMIT });
      if (!result.ok) throw new Error(`memory_search_nodes failed: ${result.error.message}`);
      const hits = (result.data as { hits: { score: number | null }[] }).hits;
      const scores = hits.map((hit) => hit.score ?? Number.POSITIVE_INFINITY);
      return { count: hits.length, ranked: isDescending(scores) };
    });
    const theirs = await measure(graph, async (query) => {
      const result = await activeClient.callTool(
        { name: 'search_nodes', arguments: { query } },
        undefined,
        { timeout: 600_000 },
      );
      const entities = (result.structuredContent as { entities: { name: string }[] }).entities;
      const positions = entities.map((entity) => order.get(entity.name) ?? -1);
      // File order means no ranking: results come back in the order they were stored.
      const inFileOrder = positions.every(
        (value, index) => index === 0 || value > (positions[index - 1] as number),
      );
      return { count: entities.length, ranked: entities.length > 1 && !inFileOrder };
    });
    const database = store.database;
    const countMatches = database.prepare('SELECT count(*) FROM node_fts WHERE node_fts MATCH ?');
    const matchesAgree = graph.queries.every((query, index) => {
      if (!/^[a-z]+$/.test(query)) return true;
      return Number(countMatches.pluck().get(`"${query}"`)) === theirs.results[index];
    });
    return {
      entities: size,
      fileBytes: Buffer.byteLength(jsonl),
      ours,
      theirs,
      matchesAgree,
      speedup: theirs.medianMs / ours.medianMs,
      speedupMean: theirs.meanMs / ours.meanMs,
      setupMs: { generate, oursImport, theirsStart },
    };
  } catch (error) {
    throw new Error(
      `${(error as Error).message} (at ${size} entities; server-memory stderr: ${serverLog.trim() || 'empty'})`,
    );
  } finally {
    await client?.close().catch(() => {});
    store?.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

async function measure(
  graph: Graph,
  search: (query: string) => Promise<{ count: number; ranked: boolean }>,
): Promise<SideFigures> {
  await search(graph.warmup);
  const latenciesMs: number[] = [];
  const results: number[] = [];
  let ranks = true;
  let sawOrderable = false;
  for (const query of graph.queries) {
    const started = performance.now();
    const { count, ranked } = await search(query);
    latenciesMs.push(performance.now() - started);
    results.push(count);
    if (count > 1) {
      sawOrderable = true;
      ranks &&= ranked;
    }
  }
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return {
    latenciesMs,
    meanMs: latenciesMs.reduce((sum, value) => sum + value, 0) / latenciesMs.length,
    medianMs: sorted[Math.floor(sorted.length / 2)] as number,
    results,
    ranks: sawOrderable && ranks,
  };
}

function isDescending(values: readonly number[]): boolean {
  return values.every((value, index) => index === 0 || value <= (values[index - 1] as number));
}

function importGraph(store: MemoryStore, graph: Graph): void {
  store.transaction(() => {
    for (const entity of graph.entities) {
      store.upsertNode({
        id: entity.name,
        text: entity.observations.join('. '),
        role: entity.entityType,
      });
    }
    for (const relation of graph.relations) {
      store.link({ from: relation.from, to: relation.to, relation: relation.relationType });
    }
  });
}

function toJsonl(graph: Graph): string {
  // server-memory's own line format (see its saveGraph): entities first, then relations.
  const lines = [
    ...graph.entities.map((entity) =>
      JSON.stringify({
        type: 'entity',
        name: entity.name,
        entityType: entity.entityType,
        observations: entity.observations,
      }),
    ),
    ...graph.relations.map((relation) =>
      JSON.stringify({
        type: 'relation',
        from: relation.from,
        to: relation.to,
        relationType: relation.relationType,
      }),
    ),
  ];
  return lines.join('\n');
}

function generateGraph(size: number, seed: number): Graph {
  const random = mulberry32(seed);
  const vocabulary = makeVocabulary(random);
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= vocabulary.length; rank += 1) {
    total += 1 / rank;
    cumulative.push(total);
  }
  const pick = (): string => {
    const target = random() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((cumulative[middle] as number) < target) low = middle + 1;
      else high = middle;
    }
    return vocabulary[low] as string;
  };
  const entities: Entity[] = [];
  for (let index = 0; index < size; index += 1) {
    const observations: string[] = [];
    for (let o = 0; o < OBSERVATIONS_PER_ENTITY; o += 1) {
      observations.push(Array.from({ length: WORDS_PER_OBSERVATION }, pick).join(' '));
    }
    entities.push({
      name: `entity-${index}`,
      entityType: ENTITY_TYPES[index % ENTITY_TYPES.length] as string,
      observations,
    });
  }
  const relations = entities.map((entity, index) => ({
    from: entity.name,
    to: `entity-${Math.floor(random() * size)}`,
    relationType: index % 2 === 0 ? 'relates_to' : 'depends_on',
  }));
  return {
    entities,
    relations,
    queries: [
      ...QUERY_RANKS.map((rank) => vocabulary[rank - 1] as string),
      `entity-${Math.floor(size / 2) + 7}`,
    ],
    warmup: vocabulary[100] as string,
  };
}

/** Distinct seven-letter pronounceable words, so no word is a substring of another. */
function makeVocabulary(random: () => number): string[] {
  const consonants = 'bcdfghjklmnprstvz';
  const vowels = 'aeiou';
  const words = new Set<string>();
  while (words.size < VOCABULARY_SIZE) {
    let word = '';
    for (let index = 0; index < 7; index += 1) {
      const letters = index % 2 === 0 ? consonants : vowels;
      word += letters[Math.floor(random() * letters.length)];
    }
    words.add(word);
  }
  return [...words];
}

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function serverMemoryEntry(): string {
  const require = createRequire(import.meta.url);
  return join(
    dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')),
    'dist',
    'index.js',
  );
}
