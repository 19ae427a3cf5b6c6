import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type PipelineToolExecutor,
  renderResult,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { createTestExecutor } from '@toolsys/core-tool-registry/testing';
import { createFileTools, createNetworkTools, createStructuredTools } from '@toolsys/core-tools';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

/*
 * The swapper race: a second process exchanges a workspace folder `d` and a symbolic link to an
 * outside folder with renameat2(RENAME_EXCHANGE) in a tight loop, while the file tools work on
 * `d/…`. Before the fix, writes landed outside, reads returned the outside file and temp files
 * were left there. Every call here must stay inside: the outside folder is compared byte for byte
 * afterwards, and no result may carry the outside secret.
 */

const OUTSIDE_SECRET = 'OUTSIDE-SECRET-c0ffee';
const INSIDE_TEXT = 'inside-text';
const ORIGINAL = 'original outside content';
/** Tool calls per test; the whole file stays well under a minute on a loaded machine. */
const ITERATIONS = Number(process.env.TOOLSYS_RACE_ITERATIONS ?? 1_500);
const PARALLEL = 8;

const SWAPPER_C = `#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  for (;;) {
    if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) != 0) {
      perror("renameat2");
      return 1;
    }
  }
}
`;

const SWAPPER_PY = `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
a, b = sys.argv[1].encode(), sys.argv[2].encode()
while True:
    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, 2) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
`;

let toolDirectory: string;
let swapperCommand: string[];
let base: string;
let root: string;
let outside: string;
let swapper: ChildProcess | undefined;

beforeAll(async () => {
  toolDirectory = await mkdtemp(join(tmpdir(), 'toolsys-adv-swapper-'));
  try {
    await writeFile(join(toolDirectory, 'swapper.c'), SWAPPER_C);
    execFileSync(
      'cc',
      ['-O2', '-o', join(toolDirectory, 'swapper'), join(toolDirectory, 'swapper.c')],
      {
        stdio: 'ignore',
      },
    );
    swapperCommand = [join(toolDirectory, 'swapper')];
  } catch {
    // No C compiler: python3 with ctypes does the same system call, more slowly.
    await writeFile(join(toolDirectory, 'swapper.py'), SWAPPER_PY);
    swapperCommand = ['python3', join(toolDirectory, 'swapper.py')];
  }
});

afterAll(async () => {
  await rm(toolDirectory, { recursive: true, force: true });
});

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'toolsys-adv-race-')));
  root = join(base, 'workspace');
  outside = join(base, 'outside');
  await mkdir(join(root, 'd', 'sub'), { recursive: true });
  await mkdir(join(outside, 'sub'), { recursive: true });
  await writeFile(join(root, 'd', 'secret.txt'), `${INSIDE_TEXT}\n`);
  await writeFile(join(root, 'd', 'victim.txt'), `${INSIDE_TEXT}\n`);
  await writeFile(join(root, 'd', 'sub', 'deep.txt'), `${INSIDE_TEXT}\n`);
  await writeFile(join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`);
  await writeFile(join(outside, 'victim.txt'), `${ORIGINAL} ${OUTSIDE_SECRET}\n`);
  await writeFile(join(outside, 'sub', 'deep.txt'), `${OUTSIDE_SECRET}\n`);
  await symlink(outside, join(root, 'link'));
});

afterEach(async () => {
  stopSwapper();
  await rm(base, { recursive: true, force: true });
});

function startSwapper(): void {
  const [command = '', ...args] = swapperCommand;
  swapper = spawn(command, [...args, join(root, 'd'), join(root, 'link')], { stdio: 'ignore' });
}

function stopSwapper(): void {
  if (swapper?.pid !== undefined && swapper.exitCode === null) {
    try {
      process.kill(swapper.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  swapper = undefined;
}

async function snapshot(folder: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    result[path.slice(folder.length + 1)] = entry.isFile() ? await readFile(path, 'utf8') : '<dir>';
  }
  return result;
}

function executor(): PipelineToolExecutor {
  return createTestExecutor({
    tools: [
      ...createFileTools({ workspaceRoot: root, useRipgrep: true }),
      ...createStructuredTools({ workspaceRoot: root }).filter((tool) => tool.id === 'file_hash'),
      ...createNetworkTools({ workspaceRoot: root, allowPrivateNetwork: true }).filter(
        (tool) => tool.id === 'download_file',
      ),
    ],
  });
}

interface Tally {
  calls: number;
  successes: number;
  refusals: number;
  leaks: string[];
}

async function race(
  call: (executor: PipelineToolExecutor, index: number) => Promise<ToolResult>,
): Promise<Tally> {
  const before = await snapshot(outside);
  const tools = executor();
  const tally: Tally = { calls: 0, successes: 0, refusals: 0, leaks: [] };
  startSwapper();
  try {
    for (let start = 0; start < ITERATIONS; start += PARALLEL) {
      const batch = Array.from({ length: Math.min(PARALLEL, ITERATIONS - start) }, (_, offset) =>
        call(tools, start + offset),
      );
      for (const result of await Promise.all(batch)) {
        tally.calls += 1;
        if (result.ok) tally.successes += 1;
        else tally.refusals += 1;
        const text = renderResult(result);
        if (text.includes(OUTSIDE_SECRET) || JSON.stringify(result).includes(OUTSIDE_SECRET)) {
          tally.leaks.push(text.slice(0, 200));
        }
      }
    }
  } finally {
    stopSwapper();
  }
  expect(swapper).toBeUndefined();
  // Nothing outside changed: no file written, overwritten, created or left behind.
  expect(await snapshot(outside)).toEqual(before);
  expect(tally.leaks).toEqual([]);
  expect(tally.calls).toBe(ITERATIONS);
  // The race must have been exercised: some calls went through while the swapper ran.
  expect(tally.successes).toBeGreaterThan(0);
  return tally;
}

describe('file tools under the RENAME_EXCHANGE swapper race', () => {
  it('write_file never writes outside and leaves no temp file there', async () => {
    const tally = await race((tools, index) =>
      tools.execute('write_file', { path: `d/f${index}.txt`, content: `written ${index}\n` }),
    );
    const written = [
      ...(await readdir(join(root, 'd')).catch(() => [] as string[])),
      ...(await readdir(join(root, 'link')).catch(() => [] as string[])),
    ].filter((name) => /^f\d+\.txt$/.test(name));
    // Whichever name the real folder has now, every successful write is in it.
    expect(new Set(written).size).toBe(tally.successes);
  }, 120_000);

  it('write_file over an existing name never overwrites the outside file', async () => {
    await race((tools, index) =>
      tools.execute('write_file', { path: 'd/victim.txt', content: `overwritten ${index}\n` }),
    );
  }, 120_000);

  it('download_file never writes outside, and leaves no part file there', async () => {
    // A local server on 127.0.0.1 answers every download with the same small file.
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '11' });
      response.end('downloaded\n');
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()));
    const { port } = server.address() as AddressInfo;
    try {
      const tally = await race((tools, index) =>
        tools.execute('download_file', {
          url: `http://127.0.0.1:${port}/file`,
          path: index % 2 === 0 ? `d/dl${index}.txt` : 'd/victim.txt',
          overwrite: true,
        }),
      );
      expect(tally.successes).toBeGreaterThan(0);
    } finally {
      server.closeAllConnections();
      await new Promise((closed) => server.close(closed));
    }
  }, 180_000);

  it('read_file never returns the outside file', async () => {
    const tally = await race((tools) => tools.execute('read_file', { path: 'd/secret.txt' }));
    expect(tally.leaks).toEqual([]);
  }, 120_000);

  it('read_file of a deeper path never returns the outside file', async () => {
    await race((tools) => tools.execute('read_file', { path: 'd/sub/deep.txt' }));
  }, 120_000);

  it('edit_file never reads or writes outside', async () => {
    const tally = await race((tools, index) => {
      if (index % 3 === 2) {
        // Matches only the outside file: it must never succeed.
        return tools.execute('edit_file', {
          path: 'd/victim.txt',
          oldString: ORIGINAL,
          newString: 'PWNED',
        });
      }
      // Toggles the inside file between two texts; both contain the search text.
      return tools.execute('edit_file', {
        path: 'd/victim.txt',
        oldString: index % 2 === 0 ? INSIDE_TEXT : `${INSIDE_TEXT}!`,
        newString: index % 2 === 0 ? `${INSIDE_TEXT}!` : INSIDE_TEXT,
      });
    });
    expect(tally.successes).toBeLessThanOrEqual(ITERATIONS);
  }, 120_000);

  it('list_files, glob_files, search_files and file_hash never show outside content or names', async () => {
    const tally = await race((tools, index) => {
      switch (index % 5) {
        case 0:
          return tools.execute('list_files', { path: 'd', recursive: true });
        case 1:
          return tools.execute('glob_files', { pattern: 'd/**/*' });
        case 2:
          return tools.execute('search_files', { pattern: 'SECRET|text', path: 'd' });
        case 3:
          return tools.execute('file_hash', { path: 'd/secret.txt' });
        default:
          return tools.execute('search_files', { pattern: 'SECRET', path: '.' });
      }
    });
    expect(tally.successes).toBeGreaterThan(0);
  }, 120_000);

  it('copy_move_file and delete_file never touch the outside folder', async () => {
    await race(async (tools, index) => {
      const copied = await tools.execute('copy_move_file', {
        source: 'd/secret.txt',
        destination: `d/copy${index}.txt`,
        operation: 'copy',
      });
      if (!copied.ok) return copied;
      return tools.execute('delete_file', { path: `d/copy${index}.txt` });
    });
    expect(existsSync(join(outside, 'secret.txt'))).toBe(true);
  }, 120_000);

  it('copying and deleting the swapped folder itself never copies or deletes outside content', async () => {
    await race(async (tools, index) => {
      const copied = await tools.execute('copy_move_file', {
        source: 'd',
        destination: `copies/c${index}`,
        operation: 'copy',
      });
      if (!copied.ok) return copied;
      const hash = await tools.execute('file_hash', { path: `copies/c${index}/secret.txt` });
      const deleted = await tools.execute('delete_file', {
        path: `copies/c${index}`,
        recursive: true,
      });
      return hash.ok ? deleted : hash;
    });
  }, 120_000);
});

describe('links at every depth, without a race', () => {
  beforeEach(async () => {
    await mkdir(join(root, 'a', 'b', 'c'), { recursive: true });
    await symlink(outside, join(root, 'a', 'out1'));
    await symlink(outside, join(root, 'a', 'b', 'out2'));
    await symlink('../../../../outside', join(root, 'a', 'b', 'c', 'out3'));
    await symlink(join(outside, 'secret.txt'), join(root, 'a', 'b', 'c', 'file-link'));
    await symlink('/etc', join(root, 'etclink'));
  });

  it.each([
    ['read_file', { path: 'a/out1/secret.txt' }],
    ['read_file', { path: 'a/b/out2/secret.txt' }],
    ['read_file', { path: 'a/b/c/out3/secret.txt' }],
    ['read_file', { path: 'a/b/c/file-link' }],
    ['read_file', { path: 'etclink/passwd' }],
    ['write_file', { path: 'a/b/out2/new.txt', content: 'x' }],
    ['write_file', { path: 'a/b/c/out3/victim.txt', content: 'x' }],
    ['edit_file', { path: 'a/out1/victim.txt', oldString: 'original', newString: 'PWNED' }],
    ['list_files', { path: 'a/b/out2' }],
    ['list_files', { path: 'etclink' }],
    ['glob_files', { pattern: 'etclink/*' }],
    ['glob_files', { pattern: 'a/out1/*' }],
    ['glob_files', { pattern: 'a/b/c/out3/**' }],
    ['search_files', { pattern: 'SECRET', path: 'a/b/out2' }],
    ['file_hash', { path: 'a/b/c/out3/secret.txt' }],
    [
      'copy_move_file',
      { source: 'a/out1/secret.txt', destination: 'stolen.txt', operation: 'copy' },
    ],
    [
      'copy_move_file',
      { source: 'd/secret.txt', destination: 'a/out1/planted.txt', operation: 'copy' },
    ],
    ['delete_file', { path: 'a/out1/secret.txt' }],
  ] as const)('%s %j is refused or finds nothing outside', async (tool, args) => {
    const before = await snapshot(outside);
    const result = await executor().execute(tool, args);
    const text = renderResult(result);
    expect(text).not.toContain(OUTSIDE_SECRET);
    expect(text).not.toMatch(/root:[^:\n]*:0:0:|^[a-z-]+\.conf$/m);
    if (result.ok) {
      // Only globs may succeed, with no match.
      expect(tool).toBe('glob_files');
      expect(result.data).toMatchObject({ paths: [], total: 0 });
    } else {
      expect(['PERMISSION_DENIED', 'NOT_FOUND']).toContain(result.error.code);
    }
    expect(await snapshot(outside)).toEqual(before);
    expect(existsSync(join(root, 'stolen.txt'))).toBe(false);
  });

  it('list_files shows a link as a link and does not descend into it', async () => {
    const result = await executor().execute('list_files', { path: 'a', recursive: true });
    expect(result.ok, renderResult(result)).toBe(true);
    if (result.ok)
      expect(result.content).toBe(
        'a/b/\na/b/c/\na/b/c/file-link@\na/b/c/out3@\na/b/out2@\na/out1@',
      );
  });
});
