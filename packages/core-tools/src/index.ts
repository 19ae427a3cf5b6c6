export { type CoreConfig, coreConfigSchema, toolPackage } from './core-package.js';
export { CPU_TOOL_IDS } from './cpu/cpu-tool-definitions.js';
export { CpuToolPool, type CpuToolPoolOptions } from './cpu/cpu-tool-pool.js';
export {
  createDiscoveryTools,
  DISCOVERY_TOOL_IDS,
  type DiscoveryToolsOptions,
} from './tools/discovery/index.js';
export { createFileTools, type FileToolsOptions } from './tools/files/index.js';
export { type CoreToolsOptions, createCoreTools } from './tools/index.js';
export { createFileMemoryTools, type FileMemoryToolsOptions } from './tools/memory/index.js';
export { createNetworkTools, type NetworkToolsOptions } from './tools/network/index.js';
export {
  createOrchestrationTools,
  type OrchestrationToolsOptions,
} from './tools/orchestration/index.js';
export { createShellTools, type ShellToolsOptions } from './tools/shell/index.js';
export {
  type ParseShortcutOptions,
  parseShortcutDefinition,
  placeholdersOf,
  renderShortcutSteps,
  renderTemplate,
  type ShortcutDefinition,
  type ShortcutParam,
  type ShortcutParamType,
  type ShortcutStepTemplate,
} from './tools/shortcuts/shortcut-definition.js';
export { type ShortcutLoadProblem, ShortcutStore } from './tools/shortcuts/shortcut-store.js';
export {
  ShortcutSuggester,
  type ShortcutSuggesterOptions,
  type ShortcutSuggestion,
} from './tools/shortcuts/shortcut-suggester.js';
export { type CompileShortcutOptions, compileShortcut } from './tools/shortcuts/shortcut-tool.js';
export { createSkillTools, type SkillToolsOptions } from './tools/skills/index.js';
export {
  parseSkillManifest,
  renderCommand,
  renderSkillManifest,
  type SkillManifest,
  type SkillToolSpec,
  shellQuote,
} from './tools/skills/skill-manifest.js';
export {
  SkillToolAdapter,
  type SkillToolAdapterOptions,
  skillOwner,
} from './tools/skills/skill-tool-adapter.js';
export {
  createStructuredTools,
  type StructuredToolsOptions,
} from './tools/structured/index.js';
export { createUtilityTools } from './tools/utilities/index.js';
