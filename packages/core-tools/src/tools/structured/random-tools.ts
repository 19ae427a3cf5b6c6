// The random pair: builds random_generate and uuid_generate.
import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import { createRandomGenerateTool } from './random-generate.js';
import { createUuidGenerateTool } from './uuid-generate.js';

/** `random_generate` and `uuid_generate`. */
export function createRandomTools(): AnyToolDefinition[] {
  return [createRandomGenerateTool(), createUuidGenerateTool()];
}
