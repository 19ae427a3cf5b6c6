import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AnyToolDefinition,
  type AnyToolPackageEntry,
  createToolExecutor,
  TOOL_CATEGORIES,
  TOOL_RISKS,
  type ToolCategory,
  type ToolMetadataInput,
  ToolRegistry,
  type ToolRisk,
} from '@toolsys/core-tool-registry';
import { BUILTIN_PACKAGES } from '@toolsys/host';

/** One tool id and the package that registers it. */
export interface OwnedToolId {
  readonly id: string;
  readonly owner: string;
}

/** One tool definition and the package that registers it. */
export interface OwnedTool extends OwnedToolId {
  readonly tool: AnyToolDefinition;
}

/**
 * Builds every package's tools the way a deployment composes them, with every package forced on
 * (`gate` mode: no backend is contacted), and returns each id with its owner, duplicates included.
 */
export async function collectToolIds(
  packages: readonly AnyToolPackageEntry[] = BUILTIN_PACKAGES,
): Promise<OwnedToolId[]> {
  return (await collectTools(packages)).map(({ id, owner }) => ({ id, owner }));
}

/** Like {@link collectToolIds}, keeping each tool definition. */
export async function collectTools(
  packages: readonly AnyToolPackageEntry[] = BUILTIN_PACKAGES,
): Promise<OwnedTool[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'toolsys-gate-'));
  const owned: OwnedTool[] = [];
  const registry = new ToolRegistry();
  const executor = createToolExecutor({ registry });
  const disposers: Array<() => unknown> = [];
  try {
    for (const entry of packages) {
      const contribution = await entry.create({
        config: entry.configSchema.parse({}),
        workspaceRoot: join(scratch, 'workspace'),
        dataDir: join(scratch, 'data'),
        configDir: scratch,
        env: {},
        registry,
        executor,
        mode: 'gate',
      });
      if (contribution.dispose) disposers.push(() => contribution.dispose?.());
      for (const tool of contribution.tools) owned.push({ id: tool.id, owner: entry.name, tool });
    }
  } finally {
    for (const dispose of disposers) await dispose();
    rmSync(scratch, { recursive: true, force: true });
  }
  return owned;
}

/** Ids registered more than once, each with every owner. */
export function findDuplicates(
  owned: readonly OwnedToolId[],
): Array<{ id: string; owners: string[] }> {
  const byId = new Map<string, string[]>();
  for (const { id, owner } of owned) byId.set(id, [...(byId.get(id) ?? []), owner]);
  return [...byId.entries()]
    .filter(([, owners]) => owners.length > 1)
    .map(([id, owners]) => ({ id, owners }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * The one tool id pattern: lowercase words joined by single `_` or `.` (`read_file`,
 * `terminal.ubuntu.ensure`), at most 64 characters. A double underscore is reserved for the
 * `mcp__server__tool` names of remote tools.
 */
export const TOOL_ID_PATTERN = /^[a-z][a-z0-9]*(?:[._][a-z0-9]+)*$/;

const HINT_NAMES = [
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
  'sensitiveAction',
] as const;

/**
 * What is wrong with a tool's id and declared metadata, as sentences (none when it is right).
 * Checked on the raw declaration, so a tool built by plain JavaScript without the types is caught.
 */
export function metadataProblems(tool: AnyToolDefinition): string[] {
  const problems: string[] = [];
  if (!TOOL_ID_PATTERN.test(tool.id) || tool.id.length > 64) {
    problems.push(`id "${tool.id}" breaks the id pattern (lowercase words joined by "_" or ".")`);
  }
  const metadata = (tool as { metadata?: Partial<ToolMetadataInput> }).metadata;
  if (!metadata) return [...problems, `"${tool.id}" declares no metadata (category, risk, hints)`];
  if (!TOOL_RISKS.includes(metadata.risk as ToolRisk)) {
    problems.push(`"${tool.id}" declares no risk (one of ${TOOL_RISKS.join(', ')})`);
  }
  if (!TOOL_CATEGORIES.includes(metadata.category as ToolCategory)) {
    problems.push(`"${tool.id}" declares no category`);
  }
  const hints = (metadata.annotations ?? {}) as Partial<Record<string, unknown>>;
  const missing = HINT_NAMES.filter((name) => typeof hints[name] !== 'boolean');
  if (missing.length > 0) problems.push(`"${tool.id}" does not declare ${missing.join(', ')}`);
  return problems;
}

/**
 * Runs the gate: prints sorted ids and a count; returns the exit code (1 on a duplicate id, an id
 * that breaks the pattern, or a tool that does not declare its risk, category and hints).
 */
export function reportGate(
  owned: readonly OwnedTool[],
  out: { write(text: string): unknown },
  err: { write(text: string): unknown },
): number {
  const ids = [...new Set(owned.map(({ id }) => id))].sort();
  for (const id of ids) out.write(`${id}\n`);
  out.write(`${ids.length} tool ids\n`);
  const duplicates = findDuplicates(owned);
  for (const { id, owners } of duplicates) {
    err.write(`duplicate tool id "${id}" registered by ${owners.join(' and ')}\n`);
  }
  let failed = duplicates.length > 0;
  for (const { tool, owner } of owned) {
    for (const problem of metadataProblems(tool)) {
      err.write(`${owner}: ${problem}\n`);
      failed = true;
    }
  }
  return failed ? 1 : 0;
}
