import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { createTempWorkspace, removeTempDir, type TempWorkspace } from '@toolsys/test-support';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeWorkspacePath } from './workspace-paths.js';

let workspace: TempWorkspace;

beforeAll(async () => {
  workspace = await createTempWorkspace('toolsys-paths-');
  await mkdir(join(workspace.root, 'src', 'deep'), { recursive: true });
  await writeFile(join(workspace.root, 'src', 'main.ts'), '');
  await writeFile(join(workspace.root, '.env'), '');
  await writeFile(join(workspace.outside, 'secret.txt'), '');
  await symlink(workspace.outside, join(workspace.root, 'escape'));
});

afterAll(async () => {
  await removeTempDir(workspace.base);
});

describe('completeWorkspacePath', () => {
  it('lists the entries starting with the last segment, directories with a slash (a link as a name)', async () => {
    expect(await completeWorkspacePath(workspace.root, '')).toEqual(['escape', 'src/']);
    expect(await completeWorkspacePath(workspace.root, 'src/')).toEqual([
      'src/deep/',
      'src/main.ts',
    ]);
    expect(await completeWorkspacePath(workspace.root, 'src/m')).toEqual(['src/main.ts']);
    expect(await completeWorkspacePath(workspace.root, '.')).toEqual(['.env']);
  });

  it('completes nothing through a link that points outside, or for a missing directory', async () => {
    expect(await completeWorkspacePath(workspace.root, 'escape/')).toEqual([]);
    expect(await completeWorkspacePath(workspace.root, 'nothing/')).toEqual([]);
  });

  it('never completes a path outside the workspace, whatever is typed', async () => {
    const root = await realpath(workspace.root);
    const segment = fc.constantFrom('..', '.', 'src', 'deep', 'escape', '', '~', '\\', 'outside');
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 6 }), fc.boolean(), async (parts, lead) => {
        const value = `${lead ? '/' : ''}${parts.join('/')}`;
        for (const completed of await completeWorkspacePath(workspace.root, value)) {
          const parent = await realpath(join(root, dirname(completed)));
          expect(relative(root, parent).startsWith('..')).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });
});
