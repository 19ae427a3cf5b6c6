import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alternativeName, saveDownload } from './download-store.js';

let workspace: string;
let outside: string;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'download-store-ws-'));
  outside = await mkdtemp(join(tmpdir(), 'download-store-out-'));
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const folder = () => ({ workspaceRoot: workspace, relative: 'downloads' });
const bytes = (text: string) => Readable.from([Buffer.from(text)]);

describe('alternativeName', () => {
  it('puts the number before the first extension', () => {
    expect(alternativeName('report.pdf', 2)).toBe('report-2.pdf');
    expect(alternativeName('archive.tar.gz', 3)).toBe('archive-3.tar.gz');
    expect(alternativeName('README', 2)).toBe('README-2');
    expect(alternativeName('.env', 2)).toBe('.env-2');
  });
});

describe('saveDownload', () => {
  it('creates the folder and saves under the asked name', async () => {
    expect(await saveDownload(folder(), 'a.txt', bytes('hello'), 100)).toEqual({
      ok: true,
      name: 'a.txt',
      bytes: 5,
    });
    expect(await readFile(join(workspace, 'downloads', 'a.txt'), 'utf8')).toBe('hello');
    expect(await readdir(join(workspace, 'downloads'))).toEqual(['a.txt']);
  });

  it('takes the next free name instead of replacing a file, a folder or a link', async () => {
    await mkdir(join(workspace, 'downloads'));
    await writeFile(join(workspace, 'downloads', 'a.txt'), 'mine');
    await mkdir(join(workspace, 'downloads', 'a-2.txt'));
    await symlink(join(outside, 'x'), join(workspace, 'downloads', 'a-3.txt'));
    expect(await saveDownload(folder(), 'a.txt', bytes('new'), 100)).toEqual({
      ok: true,
      name: 'a-4.txt',
      bytes: 3,
      renamedFrom: 'a.txt',
    });
    expect(await readFile(join(workspace, 'downloads', 'a.txt'), 'utf8')).toBe('mine');
    expect(await readdir(outside)).toEqual([]);
  });

  it('refuses a downloads folder that is a link, at any depth', async () => {
    await symlink(outside, join(workspace, 'downloads'));
    const refused = await saveDownload(folder(), 'a.txt', bytes('x'), 100);
    expect(refused).toMatchObject({ ok: false, reason: 'folder' });
    await rm(join(workspace, 'downloads'));
    await mkdir(join(outside, 'in'));
    await symlink(outside, join(workspace, 'up'));
    const deeper = { workspaceRoot: workspace, relative: 'up/in' };
    expect(await saveDownload(deeper, 'a.txt', bytes('x'), 100)).toMatchObject({ ok: false });
    expect(await readdir(join(outside, 'in'))).toEqual([]);
  });

  it('drops a file past the cap and leaves nothing behind', async () => {
    const chunks = Array.from({ length: 10 }, () => Buffer.alloc(1_000, 0x61));
    expect(await saveDownload(folder(), 'big.bin', Readable.from(chunks), 2_500)).toEqual({
      ok: false,
      reason: 'too-large',
      bytes: 2_501,
    });
    expect(await readdir(join(workspace, 'downloads'))).toEqual([]);
  });
});
