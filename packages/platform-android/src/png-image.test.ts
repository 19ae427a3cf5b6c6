import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodePng, downscale, encodePng, isAllBlack, isPng, type RgbImage } from './png-image.js';

/** An RGBA PNG whose rows use the filters 0-4 in turn, as libpng writes screencap output. */
function filteredRgbaPng(
  width: number,
  height: number,
  pixel: (x: number, y: number) => [number, number, number, number],
): Buffer {
  const stride = width * 4;
  const rows: Buffer[] = [];
  let previous = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(stride);
    for (let x = 0; x < width; x++) Buffer.from(pixel(x, y)).copy(row, x * 4);
    const filter = y % 5;
    const out = Buffer.alloc(stride + 1);
    out[0] = filter;
    for (let i = 0; i < stride; i++) {
      const left = i >= 4 ? (row[i - 4] as number) : 0;
      const up = previous[i] as number;
      const upLeft = i >= 4 ? (previous[i - 4] as number) : 0;
      const p = left + up - upLeft;
      const paeth =
        Math.abs(p - left) <= Math.abs(p - up) && Math.abs(p - left) <= Math.abs(p - upLeft)
          ? left
          : Math.abs(p - up) <= Math.abs(p - upLeft)
            ? up
            : upLeft;
      const predictor = [0, left, up, (left + up) >> 1, paeth][filter] as number;
      out[1 + i] = ((row[i] as number) - predictor) & 0xff;
    }
    rows.push(out);
    previous = row;
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 6;
  const chunk = (type: string, body: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(body.length);
    return Buffer.concat([length, Buffer.from(type), body, Buffer.alloc(4)]);
  };
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function decoded(png: Buffer): RgbImage {
  const image = decodePng(png);
  if (!image) throw new Error('the test PNG did not decode');
  return image;
}

describe('png-image', () => {
  it('decodes every filter type of an RGBA PNG', () => {
    const png = filteredRgbaPng(7, 10, (x, y) => [x * 30, y * 20, (x * y) % 256, 255]);
    const image = decodePng(png);
    expect(image?.width).toBe(7);
    expect(image?.height).toBe(10);
    for (let y = 0; y < 10; y++) {
      for (let x = 0; x < 7; x++) {
        expect([...(image?.pixels.subarray((y * 7 + x) * 3, (y * 7 + x) * 3 + 3) ?? [])]).toEqual([
          x * 30,
          y * 20,
          (x * y) % 256,
        ]);
      }
    }
  });

  it('tells an all-black capture from a dark but not black one', () => {
    expect(isAllBlack(decoded(filteredRgbaPng(4, 4, () => [0, 0, 0, 255])))).toBe(true);
    expect(isAllBlack(decoded(filteredRgbaPng(4, 4, (x) => [x === 3 ? 90 : 0, 0, 0, 255])))).toBe(
      false,
    );
  });

  it('scales down to the longest side and round-trips through encodePng', () => {
    const small = downscale(decoded(filteredRgbaPng(40, 90, (x, y) => [x, y, 0, 255])), 30);
    expect([small.width, small.height]).toEqual([13, 30]);
    const again = decodePng(encodePng(small));
    expect(again?.pixels.equals(small.pixels)).toBe(true);
  });

  it('rejects what is not a PNG', () => {
    expect(isPng(Buffer.from('no png'))).toBe(false);
    expect(decodePng(Buffer.from('no png at all'))).toBeUndefined();
  });
});
