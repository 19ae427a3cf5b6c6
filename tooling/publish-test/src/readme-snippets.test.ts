import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkReadmeSnippets, readmeSnippets } from './readme-snippets.js';

const README = [
  '# pkg', // 1
  '', // 2
  '<!-- example:start examples/quick-start.ts -->', // 3
  '```ts', // 4
  'const copied: number = "an example file, compiled as a file";', // 5
  '```', // 6
  '<!-- example:end -->', // 7
  '', // 8
  '```ts', // 9
  'const fine: number = 1;', // 10
  'const wrong: number = "text";', // 11
  '```', // 12
  '', // 13
  '```sh', // 14
  'echo not typescript', // 15
  '```', // 16
].join('\n');

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('readmeSnippets', () => {
  it('takes the ts blocks outside example markers, with the line each starts on', () => {
    expect(readmeSnippets(README)).toEqual([
      { line: 10, code: 'const fine: number = 1;\nconst wrong: number = "text";' },
    ]);
  });
});

describe('checkReadmeSnippets', { timeout: 60_000 }, () => {
  it('compiles each snippet and names the README line of an error, leaving nothing behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'readme-snippets-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'package.json'), '{"name":"pkg","type":"module"}');
    writeFileSync(join(dir, 'README.md'), README);
    const problems = checkReadmeSnippets({
      name: 'pkg',
      dir,
      relativeDir: 'packages/pkg',
      isPrivate: false,
      manifest: { name: 'pkg', version: '1.0.0' },
    });
    expect(problems).toEqual([
      {
        readme: 'packages/pkg/README.md',
        line: 11,
        message: "TS2322: Type 'string' is not assignable to type 'number'.",
      },
    ]);
    expect(readdirSync(dir).sort()).toEqual(['README.md', 'package.json']);
  });
});
