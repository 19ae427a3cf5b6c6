export { buildFtsQuery, type FtsQueryOptions } from './build-fts-query.js';
export {
  type FilledMacroSteps,
  fillMacroSteps,
  type MacroArgumentValue,
} from './fill-macro-steps.js';
export {
  MEMORY_MIGRATIONS,
  MEMORY_SCHEMA_VERSION,
  type MemoryMigration,
  migrateMemoryDatabase,
  readSchemaVersion,
} from './memory-migrations.js';
export type {
  EpisodeToolCall,
  MacroParam,
  MacroStep,
  MemoryEdge,
  MemoryEpisode,
  MemoryMacro,
  MemoryNode,
} from './memory-model.js';
export {
  type EdgeInput,
  type EpisodeInput,
  type EpisodeQuery,
  type MacroInput,
  type MacroQuery,
  MemoryStore,
  type MemoryStoreOptions,
  type NodeInput,
  type NodeSearchHit,
  type NodeSearchQuery,
} from './memory-store.js';
export { MemoryStoreError, type MemoryStoreErrorCode } from './memory-store-error.js';
export {
  type CsMemConfig,
  csMemConfigSchema,
  memoryDatabasePath,
  toolPackage,
} from './tool-package.js';
export { createMemoryTools, type MemoryToolsOptions } from './tools/memory-tools.js';
export {
  TraceMemoryRecorder,
  type TraceMemoryRecorderOptions,
  type TraceSpanLike,
  type TraceSpanSource,
} from './trace-memory-recorder.js';
