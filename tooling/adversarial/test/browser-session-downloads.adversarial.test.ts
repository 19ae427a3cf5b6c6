import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, refOf } from '../../../packages/app-browser/test/harness.js';
import { type PageServer, startPageServer } from '../../../packages/app-browser/test/support.js';

/*
 * Downloads a hostile page starts, on a real Chromium against a local server. Before the fix a
 * link planted in the downloads folder (or the folder itself, or a folder above it, being a link)
 * made the download land outside the workspace; a later download of the same name replaced the
 * user's file; and nothing bounded the bytes a page could write.
 */

const FOLDER = 'files/downloads';
const MIB = 1024 * 1024;
/** Small caps, so the attacks show in a second: 1 MiB a file, 3 files, 2.5 MiB a session. */
const LIMITS = { maxBytes: MIB, maxCount: 3, maxTotalBytes: 2.5 * MIB };

let harness: Harness;
let server: PageServer;
let outside: string;
let session = 0;
let sessionId = 'd0';

beforeAll(async () => {
  harness = await createHarness({
    downloadsFolder: FOLDER,
    manager: { downloadLimits: LIMITS },
  });
  server = await startPageServer();
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await server?.close();
});

beforeEach(async () => {
  session += 1;
  sessionId = `d${session}`;
  outside = await mkdtemp(join(tmpdir(), 'browser-outside-'));
  await rm(join(harness.workspace, 'files'), { recursive: true, force: true });
  await mkdir(join(harness.workspace, FOLDER), { recursive: true });
  return () => rm(outside, { recursive: true, force: true });
});

const text = (id: string, args: Record<string, unknown> = {}, as = sessionId) =>
  harness.text(id, args, as);
const inFolder = (name = '') => join(harness.workspace, FOLDER, name);

/** Clicks "Download all" on a page offering `files`, and waits until no download is running. */
async function downloadAll(files: readonly string[], size?: number, as = sessionId) {
  const query = `files=${files.join(',')}${size === undefined ? '' : `&size=${size}`}`;
  const page = await text('browser_navigate', { url: `${server.origin}/downloads?${query}` }, as);
  const clicked = await text('browser_click', { ref: refOf(page, 'Download all') }, as);
  let list = '';
  await expect
    .poll(
      async () => {
        list = await text('browser_download_list', {}, as);
        return list.includes('in_progress') || !list.includes(`#${files.length} `);
      },
      { timeout: 15_000 },
    )
    .toBe(false);
  return { clicked, list };
}

describe('downloads never follow a link', () => {
  it('keeps an outside file a link in the downloads folder points to', async () => {
    const secret = join(outside, 'notes.txt');
    await writeFile(secret, 'outside original\n');
    // The names the old and the new naming would pick.
    await symlink(secret, inFolder('notes.txt'));
    await symlink(secret, inFolder('1-notes.txt'));
    const { list } = await downloadAll(['notes.txt']);
    expect(await readFile(secret, 'utf8')).toBe('outside original\n');
    expect(await readdir(outside)).toEqual(['notes.txt']);
    expect(list).toContain(
      `#1 notes.txt: completed, 17 bytes, saved as ${FOLDER}/notes-2.txt (renamed: ${FOLDER}/notes.txt already exists)`,
    );
    expect(await readFile(inFolder('notes-2.txt'), 'utf8')).toBe('quarterly report\n');
  });

  it('saves nothing when the downloads folder is a link to an outside folder', async () => {
    await rm(inFolder(), { recursive: true });
    await symlink(outside, inFolder());
    const { list } = await downloadAll(['evil.desktop']);
    expect(await readdir(outside)).toEqual([]);
    expect(list).toContain(
      `#1 evil.desktop: failed (the downloads folder ${FOLDER} is reached through a symbolic link or is not a folder; downloads are saved only into a real folder inside the workspace)`,
    );
  });

  it('saves nothing when a folder above the downloads folder is a link', async () => {
    await rm(join(harness.workspace, 'files'), { recursive: true });
    await mkdir(join(outside, 'downloads'));
    await symlink(outside, join(harness.workspace, 'files'));
    const { list } = await downloadAll(['evil.desktop']);
    expect(await readdir(join(outside, 'downloads'))).toEqual([]);
    expect(list).toContain('#1 evil.desktop: failed (the downloads folder');
  });
});

describe('downloads never overwrite a file', () => {
  it("keeps the user's edited file and says what the new one was renamed to", async () => {
    await writeFile(inFolder('report.txt'), 'my edits\n');
    await writeFile(inFolder('1-report.txt'), 'my other edits\n');
    const { clicked, list } = await downloadAll(['report.txt']);
    expect(await readFile(inFolder('report.txt'), 'utf8')).toBe('my edits\n');
    expect(await readFile(inFolder('1-report.txt'), 'utf8')).toBe('my other edits\n');
    expect(await readFile(inFolder('report-2.txt'), 'utf8')).toBe('quarterly report\n');
    const saved = `Download 1 saved as ${FOLDER}/report-2.txt (17 bytes); ${FOLDER}/report.txt already exists and was left as it was.`;
    // Announced by the click when the download ended in time, else by the next call.
    if (!clicked.includes(saved)) expect(list).toContain(`saved as ${FOLDER}/report-2.txt`);
    expect(list).toContain(`(renamed: ${FOLDER}/report.txt already exists)`);
  });

  it("keeps another session's download of the same name", async () => {
    await downloadAll(['report.txt'], undefined, `${sessionId}-a`);
    await writeFile(inFolder('report.txt'), 'edited by the user\n');
    const { list } = await downloadAll(['report.txt'], undefined, `${sessionId}-b`);
    expect(await readFile(inFolder('report.txt'), 'utf8')).toBe('edited by the user\n');
    expect(list).toContain(`#1 report.txt: completed, 17 bytes, saved as ${FOLDER}/report-2.txt`);
    expect((await readdir(inFolder())).sort()).toEqual(['report-2.txt', 'report.txt']);
  });
});

describe('downloads are bounded', () => {
  it('stops a download at the per-file cap and removes the partial file', async () => {
    const size = 64 * MIB;
    const { list } = await downloadAll(['huge.bin'], size);
    expect(list).toMatch(
      /#1 huge\.bin: refused \(stopped at [\d,]+ bytes and removed: a download may have at most 1,048,576 bytes \(maxDownloadBytes\)\)/,
    );
    expect(await readdir(inFolder())).toEqual([]);
    const stream = server.streams.find((candidate) => candidate.name === 'huge.bin');
    // The browser hung up long before the page had sent everything.
    await expect.poll(() => stream?.finished, { timeout: 5_000 }).toBe(false);
    expect(stream?.sent ?? size).toBeLessThan(size / 2);
  });

  it('refuses downloads past the per-session count and says why', async () => {
    const { list } = await downloadAll(['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt']);
    expect(list.match(/: completed, /g)).toHaveLength(3);
    expect(list.match(/: refused \(this session already made 3 downloads/g)).toHaveLength(2);
    expect(list).toContain('(maxDownloads)');
    expect((await readdir(inFolder())).length).toBe(3);
  });

  it('refuses bytes past the per-session total and says why', async () => {
    const size = 900_000;
    const { list } = await downloadAll(['one.bin', 'two.bin', 'three.bin'], size);
    expect(list.match(/: completed, 900,000 bytes/g)).toHaveLength(2);
    expect(list).toMatch(
      /: refused \((stopped at [\d,]+ bytes and removed: )?this session's downloads may total at most 2,621,440 bytes \(maxDownloadTotalBytes\)/,
    );
    expect((await readdir(inFolder())).length).toBe(2);
  });
});

describe('uploads', () => {
  it('refuses an outside file reached through a link in the workspace', async () => {
    const secret = join(outside, 'secret.txt');
    await writeFile(secret, 'outside secret\n');
    await symlink(secret, join(harness.workspace, 'files', 'linked.txt'));
    const page = await text('browser_navigate', { url: `${server.origin}/form.html` });
    const result = await text('browser_file_upload', {
      ref: refOf(page, 'Attachment'),
      paths: ['files/linked.txt'],
    });
    expect(result).toMatch(/^Error: \[PERMISSION_DENIED\] paths\.0: "files\/linked\.txt"/);
  });
});
