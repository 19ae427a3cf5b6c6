import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspacePackage } from './workspace.js';

/** One example file of a package, shown verbatim in its README. */
export interface ExampleFile {
  /** The package the example belongs to. */
  readonly packageName: string;
  /** The file, absolute. */
  readonly file: string;
  /** The path relative to the package folder, as the README marker names it (`examples/x.ts`). */
  readonly relativePath: string;
  /** The file's text. */
  readonly source: string;
  /** The lines the example prints, from its closing `// Prints:` comment block. */
  readonly expectedOutput: readonly string[];
}

/** What happened to one README when its example blocks were checked or refreshed. */
export interface ReadmeExamplesOutcome {
  /** The README, absolute. */
  readonly file: string;
  /** `updated` (written), `up to date`, `stale` (differs, check mode), or `invalid` (see problems). */
  readonly status: 'updated' | 'up to date' | 'stale' | 'invalid';
  /** What is wrong, one line each, when the status is `invalid`. */
  readonly problems: readonly string[];
}

const markerPattern =
  /<!-- example:start (\S+) -->\n[\s\S]*?<!-- example:end -->|<!-- example:start (\S+) -->/g;

/** Lists the `examples/*.ts` files of a package, sorted by name. */
export function listExamples(workspacePackage: WorkspacePackage): ExampleFile[] {
  const folder = join(workspacePackage.dir, 'examples');
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => {
      const file = join(folder, name);
      const source = readFileSync(file, 'utf8');
      return {
        packageName: workspacePackage.name,
        file,
        relativePath: `examples/${name}`,
        source,
        expectedOutput: parseExpectedOutput(source),
      };
    });
}

/**
 * The lines after the last `// Prints:` comment of an example, without their `// ` prefix: what the
 * example must print. Empty when the example has no such block.
 */
export function parseExpectedOutput(source: string): string[] {
  const lines = source.trimEnd().split('\n');
  const start = lines.lastIndexOf('// Prints:');
  if (start < 0) return [];
  const printed = lines.slice(start + 1);
  if (!printed.every((line) => line === '//' || line.startsWith('// '))) return [];
  return printed.map((line) => line.slice(3));
}

/** The README block for an example: the markers around a fenced copy of the file. */
export function renderExampleBlock(relativePath: string, source: string): string {
  return [
    `<!-- example:start ${relativePath} -->`,
    '```ts',
    source.trimEnd(),
    '```',
    '<!-- example:end -->',
  ].join('\n');
}

/**
 * Puts each example file between its markers in the package README (or, with `check`, only says
 * whether the README is current). Every example must appear in the README, every marker must name
 * an existing example, and every example must declare what it prints.
 */
export function updateReadmeExamples(
  workspacePackage: WorkspacePackage,
  options: { check: boolean },
): ReadmeExamplesOutcome | undefined {
  const examples = listExamples(workspacePackage);
  const file = join(workspacePackage.dir, 'README.md');
  if (examples.length === 0) return undefined;
  const problems: string[] = [];
  if (!existsSync(file)) {
    return { file, status: 'invalid', problems: ['has examples/ but no README.md'] };
  }
  const readme = readFileSync(file, 'utf8');
  const byPath = new Map(examples.map((example) => [example.relativePath, example]));
  const included = new Set<string>();
  const next = readme.replace(markerPattern, (block, closedPath?: string, openPath?: string) => {
    const path = closedPath ?? openPath ?? '';
    if (openPath !== undefined) {
      problems.push(`<!-- example:start ${path} --> has no <!-- example:end --> after it`);
      return block;
    }
    const example = byPath.get(path);
    if (example === undefined) {
      problems.push(
        `names ${path}, which is not a file of ${workspacePackage.relativeDir}/examples`,
      );
      return block;
    }
    included.add(path);
    return renderExampleBlock(path, example.source);
  });
  for (const example of examples) {
    if (!included.has(example.relativePath)) {
      problems.push(
        `does not show ${example.relativePath}: add <!-- example:start ${example.relativePath} --> and <!-- example:end --> where it belongs`,
      );
    }
    if (example.expectedOutput.length === 0) {
      problems.push(
        `${example.relativePath} must end with a "// Prints:" comment block giving the lines it prints`,
      );
    }
  }
  if (problems.length > 0) return { file, status: 'invalid', problems };
  if (next === readme) return { file, status: 'up to date', problems };
  if (options.check) return { file, status: 'stale', problems };
  writeFileSync(file, next);
  return { file, status: 'updated', problems };
}

/** A README command that runs a workspace script whose output it shows, without `--silent`. */
const NOISY_COMMAND = /\bpnpm (?:toolsys|example)\b/;

/**
 * The lines of a README that run `pnpm toolsys …` or `pnpm example …` without `--silent`: pnpm
 * would print the command line it runs (`$ node …`) before what the tool or example prints, so a
 * reader would not see what the README says comes out. Empty when every such command is silent.
 */
export function commandsWithoutSilent(readme: string): string[] {
  return readme.split('\n').filter((line) => NOISY_COMMAND.test(line));
}
