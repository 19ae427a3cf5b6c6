import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForExit } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./fixtures/atomic-write-child.ts', import.meta.url));
const PACKAGE_DIRECTORY = fileURLToPath(new URL('..', import.meta.url));
const SIZE = 8 * 1024 * 1024;

let directory: string;
let child: ChildProcess | undefined;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'toolsys-atomic-'));
});

afterEach(async () => {
  if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  await rm(directory, { recursive: true, force: true });
});

/** Starts the writer in a real Node process (TypeScript through tsx). */
function startWriter(target: string, mode: 'block' | 'finish'): ChildProcess {
  child = spawn(process.execPath, ['--import', 'tsx', CHILD, target, String(SIZE), mode], {
    cwd: PACKAGE_DIRECTORY,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return child;
}

function waitForLine(process: ChildProcess, prefix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    process.stdout?.setEncoding('utf8');
    process.stdout?.on('data', (chunk: string) => {
      buffered += chunk;
      const line = buffered.split('\n').find((candidate) => candidate.startsWith(prefix));
      if (line !== undefined) resolve(line);
    });
    process.on('exit', (code, signal) => reject(new Error(`writer exited (${code ?? signal})`)));
  });
}

describe('writeFileAtomic in a real process', () => {
  it('leaves the old content intact when the writer is killed mid-write', async () => {
    const target = join(directory, 'data.txt');
    await writeFile(target, 'old content\n');
    const writer = startWriter(target, 'block');
    const line = await waitForLine(writer, 'mid-write');
    expect(Number(line.split(' ')[1])).toBeGreaterThan(0);
    const temp = (await readdir(directory)).find((name) => name.endsWith('.tmp'));
    expect(temp).toBeDefined();
    const partial = (await stat(join(directory, temp as string))).size;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(SIZE);

    writer.kill('SIGKILL');
    expect(await waitForExit(writer)).toBe('SIGKILL');
    expect(await readFile(target, 'utf8')).toBe('old content\n');
  });

  it('replaces the content whole when the writer finishes', async () => {
    const target = join(directory, 'data.txt');
    await writeFile(target, 'old content\n');
    const writer = startWriter(target, 'finish');
    await waitForLine(writer, 'done');
    expect(await waitForExit(writer)).toBe(0);
    const written = await readFile(target);
    expect(written.length).toBe(SIZE);
    expect(written.every((byte) => byte === 0x6e)).toBe(true);
    expect((await readdir(directory)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
