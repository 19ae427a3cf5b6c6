import { describe, expect, it } from 'vitest';
import { readApkManifest } from './apk-manifest.js';
import { readBinaryXml } from './binary-xml.js';

type Attribute = [name: string, value: string | number];

/** Compiles elements into Android's binary XML (UTF-16 string pool, start-element chunks). */
function compile(elements: { name: string; attributes: Attribute[] }[]): Buffer {
  const strings: string[] = [];
  const index = (value: string) => {
    if (!strings.includes(value)) strings.push(value);
    return strings.indexOf(value);
  };
  for (const element of elements) {
    index(element.name);
    for (const [name, value] of element.attributes) {
      index(name);
      if (typeof value === 'string') index(value);
    }
  }
  const encoded = strings.map((value) => {
    const data = Buffer.alloc(2 + value.length * 2 + 2);
    data.writeUInt16LE(value.length, 0);
    data.write(value, 2, 'utf16le');
    return data;
  });
  let body = Buffer.concat(encoded);
  if (body.length % 4) body = Buffer.concat([body, Buffer.alloc(4 - (body.length % 4))]);
  const pool = Buffer.alloc(28 + strings.length * 4);
  pool.writeUInt16LE(0x0001, 0);
  pool.writeUInt16LE(28, 2);
  pool.writeUInt32LE(pool.length + body.length, 4);
  pool.writeUInt32LE(strings.length, 8);
  pool.writeUInt32LE(28 + strings.length * 4, 20);
  let offset = 0;
  encoded.forEach((data, position) => {
    pool.writeUInt32LE(offset, 28 + position * 4);
    offset += data.length;
  });
  const chunks = [Buffer.concat([pool, body])];
  for (const element of elements) {
    const chunk = Buffer.alloc(36 + element.attributes.length * 20);
    chunk.writeUInt16LE(0x0102, 0);
    chunk.writeUInt16LE(16, 2);
    chunk.writeUInt32LE(chunk.length, 4);
    chunk.writeUInt32LE(0xffffffff, 12);
    chunk.writeUInt32LE(0xffffffff, 16);
    chunk.writeUInt32LE(index(element.name), 20);
    chunk.writeUInt16LE(20, 24);
    chunk.writeUInt16LE(20, 26);
    chunk.writeUInt16LE(element.attributes.length, 28);
    element.attributes.forEach(([name, value], position) => {
      const at = 36 + position * 20;
      chunk.writeUInt32LE(0xffffffff, at);
      chunk.writeUInt32LE(index(name), at + 4);
      chunk.writeUInt32LE(typeof value === 'string' ? index(value) : 0xffffffff, at + 8);
      chunk.writeUInt16LE(8, at + 12);
      chunk[at + 15] = typeof value === 'string' ? 0x03 : 0x10;
      chunk.writeUInt32LE(typeof value === 'string' ? index(value) : value, at + 16);
    });
    chunks.push(chunk);
  }
  const content = Buffer.concat(chunks);
  const header = Buffer.alloc(8);
  header.writeUInt16LE(0x0003, 0);
  header.writeUInt16LE(8, 2);
  header.writeUInt32LE(8 + content.length, 4);
  return Buffer.concat([header, content]);
}

/** A stored zip with a central directory, the way APKs are laid out. */
function zip(name: string, data: Buffer): Buffer {
  const fileName = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(fileName.length, 28);
  central.writeUInt32LE(0, 42);
  const centralOffset = local.length + fileName.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fileName.length, 12);
  end.writeUInt32LE(centralOffset, 16);
  return Buffer.concat([local, fileName, data, central, fileName, end]);
}

const manifest = compile([
  {
    name: 'manifest',
    attributes: [
      ['versionCode', 278],
      ['versionName', '10.6.6'],
      ['package', 'io.appium.uiautomator2.server.test'],
    ],
  },
  { name: 'uses-permission', attributes: [['name', 'android.permission.INTERNET']] },
  {
    name: 'instrumentation',
    attributes: [
      ['name', 'androidx.test.runner.AndroidJUnitRunner'],
      ['targetPackage', 'io.appium.uiautomator2.server'],
    ],
  },
]);

describe('readBinaryXml', () => {
  it('reads start tags with string and integer attributes', () => {
    expect(readBinaryXml(manifest)?.[0]).toEqual({
      name: 'manifest',
      attributes: {
        versionCode: '278',
        versionName: '10.6.6',
        package: 'io.appium.uiautomator2.server.test',
      },
    });
  });

  it('says a text document is not binary XML', () => {
    expect(readBinaryXml(Buffer.from('<manifest package="a"/>'))).toBeUndefined();
  });
});

describe('readApkManifest', () => {
  it('finds a binary manifest through the central directory, with its instrumentation', () => {
    expect(readApkManifest(zip('AndroidManifest.xml', manifest))).toEqual({
      packageName: 'io.appium.uiautomator2.server.test',
      versionName: '10.6.6',
      versionCode: 278,
      permissions: ['android.permission.INTERNET'],
      instrumentation: {
        name: 'androidx.test.runner.AndroidJUnitRunner',
        targetPackage: 'io.appium.uiautomator2.server',
      },
    });
  });

  it('returns nothing for an archive without a manifest', () => {
    expect(readApkManifest(zip('classes.dex', Buffer.from('dex')))).toBeUndefined();
  });
});
