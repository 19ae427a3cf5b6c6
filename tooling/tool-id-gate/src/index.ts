export {
  collectToolIds,
  collectTools,
  findDuplicates,
  type OwnedTool,
  type OwnedToolId,
  reportGate,
} from './collect.js';
export {
  type ReadmeOutcome,
  renderToolTable,
  replaceTable,
  TABLE_END,
  TABLE_START,
  updateReadmes,
} from './readme-tables.js';
