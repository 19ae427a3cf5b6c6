// Reading an APK's binary AndroidManifest.xml out of its zip.
import { inflateRawSync as inflateRaw } from 'node:zlib';
import { readBinaryXml } from './binary-xml.js';

/** What the sim reads from an APK: the manifest's package, version, permissions and instrumentation. */
export interface ApkManifest {
  readonly packageName: string;
  readonly versionName: string;
  readonly versionCode: number;
  readonly permissions: string[];
  /** The `<instrumentation>` the APK declares (a test APK such as the UiAutomator2 server's). */
  readonly instrumentation?: { readonly name: string; readonly targetPackage: string };
}

/** The stored or deflated bytes of one zip entry, found through the central directory. */
function readZipEntry(data: Buffer, wanted: string): Buffer | undefined {
  let end = -1;
  for (let offset = data.length - 22; offset >= Math.max(0, data.length - 65_557); offset--) {
    if (data.readUInt32LE(offset) === 0x06054b50) {
      end = offset;
      break;
    }
  }
  if (end < 0) {
    // No central directory (a truncated or hand-made archive): walk the local headers.
    let local = 0;
    while (local + 30 <= data.length && data.readUInt32LE(local) === 0x04034b50) {
      const method = data.readUInt16LE(local + 8);
      const compressedSize = data.readUInt32LE(local + 18);
      const nameLength = data.readUInt16LE(local + 26);
      const start = local + 30 + nameLength + data.readUInt16LE(local + 28);
      if (data.toString('utf8', local + 30, local + 30 + nameLength) === wanted) {
        const body = data.subarray(start, start + compressedSize);
        return method === 8 ? inflateRaw(body) : body;
      }
      local = start + compressedSize;
    }
    return undefined;
  }
  const count = data.readUInt16LE(end + 10);
  let offset = data.readUInt32LE(end + 16);
  for (let index = 0; index < count && offset + 46 <= data.length; index++) {
    if (data.readUInt32LE(offset) !== 0x02014b50) return undefined;
    const method = data.readUInt16LE(offset + 10);
    const compressedSize = data.readUInt32LE(offset + 20);
    const nameLength = data.readUInt16LE(offset + 28);
    const extraLength = data.readUInt16LE(offset + 30);
    const commentLength = data.readUInt16LE(offset + 32);
    const local = data.readUInt32LE(offset + 42);
    const name = data.toString('utf8', offset + 46, offset + 46 + nameLength);
    if (name === wanted) {
      if (local + 30 > data.length || data.readUInt32LE(local) !== 0x04034b50) return undefined;
      const start = local + 30 + data.readUInt16LE(local + 26) + data.readUInt16LE(local + 28);
      const body = data.subarray(start, start + compressedSize);
      return method === 8 ? inflateRaw(body) : body;
    }
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return undefined;
}

/**
 * Reads the manifest of an APK (a zip archive): finds `AndroidManifest.xml` through the central
 * directory and reads the package, version, permissions and instrumentation from it. Accepts the
 * compiled binary manifest real build tools write, or a text manifest.
 */
export function readApkManifest(data: Buffer): ApkManifest | undefined {
  if (data.length < 22 || data.readUInt32LE(0) !== 0x04034b50) return undefined;
  let manifest: Buffer | undefined;
  try {
    manifest = readZipEntry(data, 'AndroidManifest.xml');
  } catch {
    return undefined;
  }
  if (!manifest) return undefined;
  const elements = readBinaryXml(manifest);
  if (elements) {
    const root = elements.find((element) => element.name === 'manifest');
    const packageName = root?.attributes.package;
    if (!root || !packageName) return undefined;
    const instrumentation = elements.find((element) => element.name === 'instrumentation');
    return {
      packageName,
      versionName: root.attributes.versionName ?? '1.0',
      versionCode: Number(root.attributes.versionCode ?? '1'),
      permissions: elements
        .filter((element) => element.name === 'uses-permission')
        .map((element) => element.attributes.name ?? ''),
      ...(instrumentation?.attributes.name !== undefined
        ? {
            instrumentation: {
              name: instrumentation.attributes.name,
              targetPackage: instrumentation.attributes.targetPackage ?? packageName,
            },
          }
        : {}),
    };
  }
  const text = manifest.toString('utf8');
  const packageName = /package="([^"]+)"/.exec(text)?.[1];
  if (!packageName) return undefined;
  return {
    packageName,
    versionName: /android:versionName="([^"]+)"/.exec(text)?.[1] ?? '1.0',
    versionCode: Number(/android:versionCode="(\d+)"/.exec(text)?.[1] ?? '1'),
    permissions: [...text.matchAll(/uses-permission[^>]*android:name="([^"]+)"/g)].map(
      (match) => match[1] as string,
    ),
  };
}
