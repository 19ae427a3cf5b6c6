import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolErrorCode } from '../contract/tool-error.js';
import { failureResult, successResult } from '../contract/tool-result.js';
import { ONE_PIXEL_PNG } from './adapter-test-kit.js';
import { readInlineImages, renderForModel } from './artifact-output.js';

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'toolsys-artifact-output-'));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('renderForModel', () => {
  it('names each artifact the text does not name, once', () => {
    const named = join(folder, 'named.png');
    const other = join(folder, 'tree.txt');
    const result = successResult(`Saved the screenshot to ${named}.`, {
      artifacts: [
        { path: named, mimeType: 'image/png' },
        { path: other, mimeType: 'text/plain', description: 'the whole tree' },
      ],
    });
    expect(renderForModel(result)).toBe(
      `Saved the screenshot to ${named}.\nFile: ${other} (text/plain, the whole tree)`,
    );
  });

  it('renders results without artifacts and failures as renderResult does', () => {
    expect(renderForModel(successResult('5'))).toBe('5');
    expect(
      renderForModel(failureResult(ToolErrorCode.NOT_FOUND, 'No such file.', { hint: 'List it.' })),
    ).toBe('Error: [NOT_FOUND] No such file.\nNext: List it.');
  });
});

describe('readInlineImages', () => {
  it('reads image artifacts within the size, in base64, and skips everything else', async () => {
    const png = join(folder, 'a.png');
    await writeFile(png, ONE_PIXEL_PNG);
    const big = join(folder, 'big.png');
    await writeFile(big, Buffer.alloc(2_000));
    const text = join(folder, 'a.txt');
    await writeFile(text, 'hello');
    const link = join(folder, 'link.png');
    await symlink(png, link);
    const images = await readInlineImages(
      [
        { path: png, mimeType: 'image/png' },
        { path: big, mimeType: 'image/png' },
        { path: text, mimeType: 'text/plain' },
        { path: link, mimeType: 'image/png' },
        { path: join(folder, 'gone.png'), mimeType: 'image/png' },
        { path: folder, mimeType: 'image/png' },
      ],
      1_000,
    );
    expect(images).toEqual([{ mimeType: 'image/png', data: ONE_PIXEL_PNG.toString('base64') }]);
    expect(await readInlineImages([{ path: png, mimeType: 'image/png' }], 0)).toEqual([]);
    expect(await readInlineImages(undefined, 1_000)).toEqual([]);
  });
});
