import { corePackage } from './core.js';
import { csMemPackage } from './cs-mem.js';
import { mcpClientPackage } from './mcp-client.js';
import type { ToolPackageEntry } from './types.js';

/** Every workspace package the host can compose, in registration order. */
export const TOOL_PACKAGES: readonly ToolPackageEntry[] = [
  corePackage,
  mcpClientPackage,
  csMemPackage,
];

export type {
  PackageContext,
  PackageContribution,
  PackageStatus,
  ToolPackageEntry,
} from './types.js';
