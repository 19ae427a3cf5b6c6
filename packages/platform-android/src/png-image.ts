import { crc32, deflateSync, inflateSync } from 'node:zlib';

/** A decoded 8-bit RGB image. */
export interface RgbImage {
  readonly width: number;
  readonly height: number;
  /** width × height × 3 bytes, row-major. */
  readonly pixels: Buffer;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Whether the bytes start with the PNG signature. */
export function isPng(bytes: Buffer): boolean {
  return bytes.length >= 8 && bytes.subarray(0, 8).equals(SIGNATURE);
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

/**
 * Decodes a non-interlaced 8-bit PNG in RGB or RGBA (what `screencap -p` writes) to RGB. Returns
 * undefined for other variants (palette, 16-bit, interlaced), which callers treat as "cannot
 * inspect".
 */
export function decodePng(bytes: Buffer): RgbImage | undefined {
  if (!isPng(bytes)) return undefined;
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  while (offset + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const depth = body[8];
      const colour = body[9];
      const interlace = body[12];
      if (depth !== 8 || interlace !== 0 || (colour !== 2 && colour !== 6)) return undefined;
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') {
      data.push(body);
    } else if (type === 'IEND') {
      break;
    }
    offset += 12 + length;
  }
  if (width === 0 || height === 0 || channels === 0) return undefined;
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(data));
  } catch {
    return undefined;
  }
  const stride = width * channels;
  if (raw.length < (stride + 1) * height) return undefined;
  const current = Buffer.alloc(stride);
  const previous = Buffer.alloc(stride);
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    const rowStart = y * (stride + 1);
    const filter = raw[rowStart];
    for (let x = 0; x < stride; x++) {
      const value = raw[rowStart + 1 + x] as number;
      const left = x >= channels ? (current[x - channels] as number) : 0;
      const up = previous[x] as number;
      const upLeft = x >= channels ? (previous[x - channels] as number) : 0;
      let decoded: number;
      switch (filter) {
        case 0:
          decoded = value;
          break;
        case 1:
          decoded = value + left;
          break;
        case 2:
          decoded = value + up;
          break;
        case 3:
          decoded = value + ((left + up) >> 1);
          break;
        case 4:
          decoded = value + paeth(left, up, upLeft);
          break;
        default:
          return undefined;
      }
      current[x] = decoded & 0xff;
    }
    for (let x = 0; x < width; x++) {
      current.copy(pixels, (y * width + x) * 3, x * channels, x * channels + 3);
    }
    current.copy(previous);
  }
  return { width, height, pixels };
}

/** Whether every pixel is (nearly) black — what a FLAG_SECURE window gives `screencap`. */
export function isAllBlack(image: RgbImage, threshold = 8): boolean {
  for (const value of image.pixels) if (value > threshold) return false;
  return true;
}

/** Scales an image down (box average) so that its longer side is at most `maxSide`. */
export function downscale(image: RgbImage, maxSide: number): RgbImage {
  const longer = Math.max(image.width, image.height);
  if (longer <= maxSide) return image;
  const factor = Math.ceil(longer / maxSide);
  const width = Math.floor(image.width / factor);
  const height = Math.floor(image.height / factor);
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let channel = 0; channel < 3; channel++) {
        let sum = 0;
        for (let dy = 0; dy < factor; dy++) {
          for (let dx = 0; dx < factor; dx++) {
            sum += image.pixels[
              ((y * factor + dy) * image.width + x * factor + dx) * 3 + channel
            ] as number;
          }
        }
        pixels[(y * width + x) * 3 + channel] = Math.round(sum / (factor * factor));
      }
    }
  }
  return { width, height, pixels };
}

function chunk(type: string, body: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), body]);
  const out = Buffer.alloc(8 + body.length + 4);
  out.writeUInt32BE(body.length, 0);
  typed.copy(out, 4);
  out.writeUInt32BE(crc32(typed), 8 + body.length);
  return out;
}

/** Encodes an RGB image as PNG (filter "up" on every row, which suits screenshots). */
export function encodePng(image: RgbImage): Buffer {
  const stride = image.width * 3;
  const raw = Buffer.alloc((stride + 1) * image.height);
  for (let y = 0; y < image.height; y++) {
    raw[y * (stride + 1)] = 2;
    for (let x = 0; x < stride; x++) {
      const value = image.pixels[y * stride + x] as number;
      const up = y > 0 ? (image.pixels[(y - 1) * stride + x] as number) : 0;
      raw[y * (stride + 1) + 1 + x] = (value - up) & 0xff;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(image.width, 0);
  header.writeUInt32BE(image.height, 4);
  header[8] = 8;
  header[9] = 2;
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
