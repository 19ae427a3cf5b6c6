export { collectToolIds, findDuplicates, type OwnedToolId, reportGate } from './collect.js';
