import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot, type WorkspacePackage } from './workspace.js';

/** One TypeScript code block of a README that is not a copy of an example file. */
export interface ReadmeSnippet {
  /** The line of the README the code starts on (1-based, after the opening fence). */
  readonly line: number;
  /** The code, as written. */
  readonly code: string;
}

/** A compiler error in a snippet, placed on the README line it comes from. */
export interface SnippetProblem {
  readonly readme: string;
  readonly line: number;
  readonly message: string;
}

const FENCE = /^```(ts|typescript)\s*$/;
const EXAMPLE_START = /^<!-- example:start \S+ -->$/;
const EXAMPLE_END = '<!-- example:end -->';

/**
 * The `ts` blocks of a README, skipping those between example markers: those are copies of
 * `examples/*.ts`, which are compiled and run as files.
 */
export function readmeSnippets(readme: string): ReadmeSnippet[] {
  const lines = readme.split('\n');
  const snippets: ReadmeSnippet[] = [];
  let inExample = false;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    if (EXAMPLE_START.test(line)) inExample = true;
    else if (line === EXAMPLE_END) inExample = false;
    if (inExample || !FENCE.test(line)) continue;
    const start = index + 1;
    let end = start;
    while (end < lines.length && !(lines[end] ?? '').startsWith('```')) end += 1;
    snippets.push({ line: start + 1, code: lines.slice(start, end).join('\n') });
    index = end;
  }
  return snippets;
}

/** The first line every snippet file gets, making it a module so that names never collide. */
const PRELUDE = 'export {};\n';
const ERROR_LINE = /^(?:.*[\\/])?snippet-(\d+)\.ts\((\d+),\d+\): error (TS\d+: .*)$/;

/**
 * Compiles a package's README snippets against its built types, as a user who copies one into a
 * project would: every snippet must be complete (its imports, its variables) and type-correct.
 */
export function checkReadmeSnippets(workspacePackage: WorkspacePackage): SnippetProblem[] {
  const readmePath = join(workspacePackage.dir, 'README.md');
  if (!existsSync(readmePath)) return [];
  const snippets = readmeSnippets(readFileSync(readmePath, 'utf8'));
  if (snippets.length === 0) return [];
  const readme = `${workspacePackage.relativeDir}/README.md`;
  // Inside the package, so its own name and its dependencies resolve as they do for its code.
  const scratch = mkdtempSync(join(workspacePackage.dir, '.readme-snippets-'));
  try {
    snippets.forEach((snippet, index) => {
      writeFileSync(join(scratch, `snippet-${index}.ts`), PRELUDE + snippet.code);
    });
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        extends: join(repoRoot, 'tooling/tsconfig/base.json'),
        // The built declarations, as an installed package has them.
        compilerOptions: {
          noEmit: true,
          customConditions: [],
          rootDir: '.',
          typeRoots: [join(repoRoot, 'node_modules/@types')],
        },
        include: ['*.ts'],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    let output = '';
    try {
      execFileSync(
        process.execPath,
        [tsc, '-p', join(scratch, 'tsconfig.json'), '--pretty', 'false'],
        {
          cwd: scratch,
          encoding: 'utf8',
        },
      );
    } catch (error) {
      output = String((error as { stdout?: unknown }).stdout ?? error);
    }
    const problems: SnippetProblem[] = [];
    for (const text of output.split('\n')) {
      const match = ERROR_LINE.exec(text.trim());
      if (!match) continue;
      const snippet = snippets[Number(match[1])];
      if (!snippet) continue;
      // The prelude is one line; line 2 of the file is the snippet's first.
      problems.push({ readme, line: snippet.line + Number(match[2]) - 2, message: match[3] ?? '' });
    }
    if (problems.length === 0 && output.trim() !== '') {
      problems.push({ readme, line: snippets[0]?.line ?? 1, message: output.trim().slice(0, 500) });
    }
    return problems;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
