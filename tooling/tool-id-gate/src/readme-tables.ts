import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstSentence, resolveMetadata } from '@toolsys/core-tool-registry';
import type { OwnedTool } from './collect.js';

/** The markers a package README carries around its generated tool table. */
export const TABLE_START = '<!-- tools:start -->';
export const TABLE_END = '<!-- tools:end -->';

const HINT_LABELS: Array<[keyof ReturnType<typeof resolveMetadata>['annotations'], string]> = [
  ['readOnlyHint', 'read-only'],
  ['destructiveHint', 'destructive'],
  ['idempotentHint', 'idempotent'],
  ['openWorldHint', 'open-world'],
  ['sensitiveAction', 'sensitive'],
];

/** Renders the Markdown table of a package's tools: id, category, risk, annotations, description. */
export function renderToolTable(tools: readonly OwnedTool[]): string {
  const rows = [...tools]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map(({ tool }) => {
      const metadata = resolveMetadata(tool.metadata);
      const hints = HINT_LABELS.filter(([key]) => metadata.annotations[key])
        .map(([, label]) => label)
        .join(', ');
      const description = firstSentence(tool.description).replace(/\|/g, '\\|');
      return `| \`${tool.id}\` | ${metadata.category} | ${metadata.risk} | ${hints || '—'} | ${description} |`;
    });
  if (rows.length === 0) return '_No tools registered._';
  return [
    `${rows.length} tools.`,
    '',
    '| id | category | risk | annotations | description |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** Replaces the text between the markers; returns undefined when the markers are missing. */
export function replaceTable(readme: string, table: string): string | undefined {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start === -1 || end === -1 || end < start) return undefined;
  return `${readme.slice(0, start + TABLE_START.length)}\n${table}\n${readme.slice(end)}`;
}

/** A README the generator looked at. */
export interface ReadmeOutcome {
  readonly file: string;
  readonly status: 'unchanged' | 'updated' | 'stale' | 'missing-markers' | 'no-tools';
}

/**
 * Regenerates the tool table of every `packages/*` README from the composed registry. With
 * `check`, writes nothing and reports stale files instead.
 */
export function updateReadmes(
  root: string,
  owned: readonly OwnedTool[],
  options: { check: boolean },
): ReadmeOutcome[] {
  const outcomes: ReadmeOutcome[] = [];
  const packagesDir = join(root, 'packages');
  for (const folder of readdirSync(packagesDir).sort()) {
    const manifestPath = join(packagesDir, folder, 'package.json');
    const readmePath = join(packagesDir, folder, 'README.md');
    if (!existsSync(manifestPath)) continue;
    const name = (JSON.parse(readFileSync(manifestPath, 'utf8')) as { name: string }).name;
    const file = join('packages', folder, 'README.md');
    if (!existsSync(readmePath)) {
      outcomes.push({ file, status: 'missing-markers' });
      continue;
    }
    const readme = readFileSync(readmePath, 'utf8');
    const tools = owned.filter((tool) => tool.owner === name);
    const next = replaceTable(readme, renderToolTable(tools));
    // A package that defines no tools (platform, state stores) needs no table.
    if (next === undefined && tools.length === 0) outcomes.push({ file, status: 'no-tools' });
    else if (next === undefined) outcomes.push({ file, status: 'missing-markers' });
    else if (next === readme) outcomes.push({ file, status: 'unchanged' });
    else if (options.check) outcomes.push({ file, status: 'stale' });
    else {
      writeFileSync(readmePath, next);
      outcomes.push({ file, status: 'updated' });
    }
  }
  return outcomes;
}
