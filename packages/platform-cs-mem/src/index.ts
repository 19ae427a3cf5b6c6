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
export { MemoryStore } from './memory-store.js';
export { MemoryStoreError, type MemoryStoreErrorCode } from './memory-store-error.js';
export type {
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
export { MemoryStores, type MemoryStoresOptions } from './memory-stores.js';
export {
  type CsMemConfig,
  csMemConfigSchema,
  memoryDatabasePath,
  toolPackage,
} from './tool-package.js';
export { createMemoryTools, type MemoryToolsOptions } from './tools/index.js';
export {
  TraceMemoryRecorder,
  type TraceMemoryRecorderOptions,
  type TraceSpanLike,
  type TraceSpanSource,
} from './trace-memory-recorder.js';
