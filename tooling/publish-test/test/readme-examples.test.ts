import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  commandsWithoutSilent,
  listExamples,
  parseExpectedOutput,
  renderExampleBlock,
  updateReadmeExamples,
} from '../src/readme-examples.js';
import {
  listPublicPackages,
  listWorkspacePackages,
  repoRoot,
  type WorkspacePackage,
} from '../src/workspace.js';

const run = promisify(execFile);
const examples = listPublicPackages().flatMap((entry) => listExamples(entry));

describe('README example blocks', () => {
  it('covers the packages whose READMEs show usage', () => {
    const packages = new Set(examples.map((example) => example.packageName));
    for (const name of [
      '@toolsys/app-browser',
      '@toolsys/app-github',
      '@toolsys/core-tool-registry',
      '@toolsys/core-tools',
      '@toolsys/mcp-client',
      '@toolsys/platform-android',
      '@toolsys/platform-cs-mem',
      '@toolsys/platform-terminal',
    ]) {
      expect(packages).toContain(name);
    }
  });

  it.each(listPublicPackages().map((entry) => [entry.name, entry] as const))(
    '%s: README blocks equal the example files',
    (_name, entry) => {
      const outcome = updateReadmeExamples(entry, { check: true });
      if (outcome === undefined) return;
      expect(outcome.problems).toEqual([]);
      expect(outcome.status, 'run `pnpm readme:examples`').toBe('up to date');
    },
  );
});

describe('README commands', () => {
  it('run pnpm scripts with --silent, so a reader sees only what the tool prints', () => {
    const readmes = [repoRoot, ...listWorkspacePackages().map((entry) => entry.dir)]
      .map((dir) => join(dir, 'README.md'))
      .filter((file) => existsSync(file));
    expect(readmes.length).toBeGreaterThan(5);
    for (const file of readmes) {
      expect(commandsWithoutSilent(readFileSync(file, 'utf8')), file).toEqual([]);
    }
  });

  it("finds a command that would show pnpm's own line", () => {
    expect(
      commandsWithoutSilent(
        '```sh\npnpm toolsys list\npnpm --silent toolsys doctor\n```\nRun `pnpm example x.ts`.\n',
      ),
    ).toEqual(['pnpm toolsys list', 'Run `pnpm example x.ts`.']);
  });
});

describe('the README example checker', () => {
  let scratch: string | undefined;
  afterEach(() => {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
    scratch = undefined;
  });

  /** A throwaway package folder with one example and the given README. */
  function fakePackage(readme: string, example = "console.log('hi');\n\n// Prints:\n// hi\n") {
    scratch = mkdtempSync(join(tmpdir(), 'toolsys-readme-'));
    const dir = join(scratch, 'pkg');
    const examplesDir = join(dir, 'examples');
    mkdirSync(examplesDir, { recursive: true });
    writeFileSync(join(examplesDir, 'hello.ts'), example);
    writeFileSync(join(dir, 'README.md'), readme);
    const entry: WorkspacePackage = {
      name: '@example/pkg',
      dir,
      relativeDir: 'packages/pkg',
      isPrivate: false,
      manifest: { name: '@example/pkg', version: '1.0.0' },
    };
    return entry;
  }

  it('fills the markers with the file and leaves the rest of the README alone', () => {
    const entry = fakePackage(
      '# pkg\n\n<!-- example:start examples/hello.ts -->\nold\n<!-- example:end -->\n\nrest\n',
    );
    expect(updateReadmeExamples(entry, { check: true })?.status).toBe('stale');
    expect(updateReadmeExamples(entry, { check: false })?.status).toBe('updated');
    expect(readFileSync(join(entry.dir, 'README.md'), 'utf8')).toBe(
      `# pkg\n\n${renderExampleBlock('examples/hello.ts', "console.log('hi');\n\n// Prints:\n// hi\n")}\n\nrest\n`,
    );
    expect(updateReadmeExamples(entry, { check: true })?.status).toBe('up to date');
  });

  it('names an example the README does not show, and a marker naming no file', () => {
    const entry = fakePackage(
      '# pkg\n\n<!-- example:start examples/gone.ts -->\n<!-- example:end -->\n',
    );
    const outcome = updateReadmeExamples(entry, { check: true });
    expect(outcome?.status).toBe('invalid');
    expect(outcome?.problems).toEqual([
      'names examples/gone.ts, which is not a file of packages/pkg/examples',
      'does not show examples/hello.ts: add <!-- example:start examples/hello.ts --> and <!-- example:end --> where it belongs',
    ]);
  });

  it('refuses an example that does not say what it prints', () => {
    const entry = fakePackage(
      '<!-- example:start examples/hello.ts -->\n<!-- example:end -->\n',
      "console.log('hi');\n",
    );
    expect(updateReadmeExamples(entry, { check: true })?.problems).toEqual([
      'examples/hello.ts must end with a "// Prints:" comment block giving the lines it prints',
    ]);
  });

  it('reads the printed lines from the last "// Prints:" block only', () => {
    expect(parseExpectedOutput('a();\n// Prints:\n// 1\n//\n// 2\n')).toEqual(['1', '', '2']);
    expect(parseExpectedOutput('// Prints:\n// 1\nmore();\n')).toEqual([]);
  });
});

/**
 * Runs an example from the repository root the way the README says, with tsx; `source` resolves
 * the workspace packages to their TypeScript sources (no build needed), otherwise to their `dist`.
 */
async function runExample(file: string, source: boolean): Promise<string[]> {
  const conditions = source ? ['--conditions=@toolsys/source'] : [];
  const { stdout } = await run(process.execPath, [...conditions, '--import', 'tsx', file], {
    cwd: repoRoot,
    timeout: 90_000,
    killSignal: 'SIGKILL',
  });
  return stdout.trimEnd().split('\n');
}

describe.each(
  examples.map((example) => [`${example.packageName} ${example.relativePath}`, example] as const),
)('%s', (_label, example) => {
  it('prints what its "// Prints:" block says, from the sources', async () => {
    expect(await runExample(example.file, true)).toEqual(example.expectedOutput);
  }, 120_000);

  it('prints the same from the built package', async () => {
    expect(await runExample(example.file, false)).toEqual(example.expectedOutput);
  }, 120_000);

  it('imports only public entries of @toolsys packages, zod and Node built-ins', () => {
    const specifiers = [...example.source.matchAll(/from '([^']+)'/g)].map((match) => match[1]);
    expect(specifiers.length).toBeGreaterThan(0);
    for (const specifier of specifiers) {
      // zod is the kernel's own dependency: a tool declared with it needs nothing else installed.
      expect(specifier).toMatch(/^(node:[a-z/]+|zod|@toolsys\/[a-z-]+(\/[a-z-]+)*)$/);
      expect(specifier).not.toMatch(/\/(src|dist)(\/|$)/);
    }
  });
});
