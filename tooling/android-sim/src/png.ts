import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** An axis-aligned filled rectangle, in pixels: [left, top, right, bottom) and an RGB colour. */
export interface PngRectangle {
  readonly bounds: readonly [number, number, number, number];
  readonly rgb: readonly [number, number, number];
}

/**
 * Encodes an 8-bit RGB PNG of `width`×`height` filled with `background`, with rectangles painted
 * over it in order (what `screencap -p` gives, minus the alpha channel).
 */
export function encodePng(
  width: number,
  height: number,
  background: readonly [number, number, number],
  rectangles: readonly PngRectangle[] = [],
): Buffer {
  const stride = width * 3 + 1;
  const raw = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    raw[row] = 0;
    for (let x = 0; x < width; x++) {
      raw[row + 1 + x * 3] = background[0];
      raw[row + 2 + x * 3] = background[1];
      raw[row + 3 + x * 3] = background[2];
    }
  }
  for (const rectangle of rectangles) {
    const [left, top, right, bottom] = rectangle.bounds;
    for (let y = Math.max(0, top); y < Math.min(height, bottom); y++) {
      for (let x = Math.max(0, left); x < Math.min(width, right); x++) {
        const offset = y * stride + 1 + x * 3;
        raw[offset] = rectangle.rgb[0];
        raw[offset + 1] = rectangle.rgb[1];
        raw[offset + 2] = rectangle.rgb[2];
      }
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
