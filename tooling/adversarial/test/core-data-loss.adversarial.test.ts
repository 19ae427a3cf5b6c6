import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createToolExecutor,
  type PipelineToolExecutor,
  ToolRegistry,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { createFileMemoryTools, createFileTools, createNetworkTools } from '@toolsys/core-tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/*
 * Data lost without a word: a download committed over a file the user saved meanwhile and took
 * the user's own `<name>.part`; two exclusive writes to one new path both reported "Created"; and
 * concurrent appends to one note reported success while most of them were dropped. Every call
 * here either keeps what it reported or says it did not.
 */

let base: string;
let root: string;
let server: Server | undefined;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'toolsys-adv-loss-')));
  root = join(base, 'workspace');
  await mkdir(root, { recursive: true });
});

afterEach(async () => {
  const running = server;
  server = undefined;
  if (running) {
    running.closeAllConnections();
    await new Promise<void>((done) => running.close(() => done()));
  }
  await rm(base, { recursive: true, force: true });
});

function executor(): PipelineToolExecutor {
  const registry = new ToolRegistry();
  registry.registerAll(createFileTools({ workspaceRoot: root }));
  registry.registerAll(createNetworkTools({ workspaceRoot: root, allowPrivateNetwork: true }));
  registry.registerAll(createFileMemoryTools({ directory: join(base, 'notes') }));
  return createToolExecutor({ registry });
}

/** A server that sends half a file, waits for `release`, then sends the rest. */
async function startSlowServer(release: Promise<void>): Promise<string> {
  const half = Buffer.alloc(64 * 1024, 'd');
  server = createServer((_request, response) => {
    response.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(half.length * 2),
    });
    response.write(half);
    void release.then(() => response.end(half));
  });
  await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/file`;
}

describe('download_file with overwrite=false', () => {
  it('never replaces a file saved during the download, nor touches the user\u2019s .part file', async () => {
    let releaseServer = () => {};
    const release = new Promise<void>((done) => {
      releaseServer = done;
    });
    const url = await startSlowServer(release);
    await writeFile(join(root, 'notes.txt.part'), 'my own draft part\n');
    const tools = executor();
    const call = tools.execute('download_file', { url, path: 'notes.txt', overwrite: false });
    // The user saves notes.txt while the download is under way.
    await new Promise((done) => setTimeout(done, 300));
    await writeFile(join(root, 'notes.txt'), 'saved by the user\n');
    releaseServer();
    const result = await call;
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.code).toBe('INVALID_ARGUMENT');
    expect(!result.ok && result.error.message).toContain('"notes.txt" already exists');
    expect(await readFile(join(root, 'notes.txt'), 'utf8')).toBe('saved by the user\n');
    expect(await readFile(join(root, 'notes.txt.part'), 'utf8')).toBe('my own draft part\n');
    // No private part file is left behind either.
    expect((await readdir(root)).sort()).toEqual(['notes.txt', 'notes.txt.part']);
  });

  it('leaves the user\u2019s .part file alone when the download succeeds', async () => {
    const url = await startSlowServer(Promise.resolve());
    await writeFile(join(root, 'data.bin.part'), 'not a download\n');
    const result = await executor().execute('download_file', { url, path: 'data.bin' });
    expect(result.ok).toBe(true);
    expect((await readFile(join(root, 'data.bin'))).length).toBe(128 * 1024);
    expect(await readFile(join(root, 'data.bin.part'), 'utf8')).toBe('not a download\n');
    expect((await readdir(root)).sort()).toEqual(['data.bin', 'data.bin.part']);
  });
});

describe('write_file with overwrite=false', () => {
  it('creates a new path once: every other concurrent writer is told it exists', async () => {
    const tools = executor();
    for (let round = 0; round < 5; round++) {
      const path = `new-${round}.txt`;
      const results: ToolResult[] = await Promise.all(
        Array.from({ length: 4 }, (_, writer) =>
          tools.execute('write_file', {
            path,
            content: `writer ${writer}\n`,
            overwrite: false,
          }),
        ),
      );
      const created = results.flatMap((result, writer) =>
        result.ok && result.content.startsWith('Created') ? [writer] : [],
      );
      expect(created).toHaveLength(1);
      for (const result of results) {
        if (result.ok) continue;
        expect(result.error.code).toBe('INVALID_ARGUMENT');
        expect(result.error.message).toContain('already exists');
      }
      expect(await readFile(join(root, path), 'utf8')).toBe(`writer ${created[0]}\n`);
    }
    // No temp file is left behind.
    expect((await readdir(root)).filter((name) => name.startsWith('.'))).toEqual([]);
  });
});

describe('memorize mode=append', () => {
  it('keeps every one of 20 concurrent appends it reports as saved', async () => {
    const tools = executor();
    await tools.execute('memorize', { key: 'log', content: 'start' });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        tools.execute('memorize', { key: 'log', content: `entry-${index}`, mode: 'append' }),
      ),
    );
    expect(results.every((result) => result.ok)).toBe(true);
    const recalled = await tools.execute('recall', { key: 'log' });
    expect(recalled.ok).toBe(true);
    const text = recalled.ok ? recalled.content : '';
    for (let index = 0; index < 20; index++) expect(text).toContain(`entry-${index}`);
    expect(text).toContain('start');
  });

  it('keeps appends made by two tool sets sharing one notes folder', async () => {
    const first = executor();
    const second = executor();
    await first.execute('memorize', { key: 'shared', content: 'start' });
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        (index % 2 === 0 ? first : second).execute('memorize', {
          key: 'shared',
          content: `item-${index}`,
          mode: 'append',
        }),
      ),
    );
    expect(results.every((result) => result.ok)).toBe(true);
    const note = await readFile(join(base, 'notes', 'shared.md'), 'utf8');
    for (let index = 0; index < 16; index++) expect(note).toContain(`item-${index}`);
  });
});
