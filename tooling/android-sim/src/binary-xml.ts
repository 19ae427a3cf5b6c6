/** One start tag of a compiled Android XML document, with its attributes as strings. */
export interface BinaryXmlElement {
  /** Tag name, e.g. `manifest`, `uses-permission`, `instrumentation`. */
  readonly name: string;
  /** Attribute values by name without namespace (`package`, `name`, `versionCode` …). */
  readonly attributes: Readonly<Record<string, string>>;
}

// Chunk types of the compiled XML format (frameworks/base/libs/androidfw/include/androidfw/ResourceTypes.h).
const RES_XML_TYPE = 0x0003;
const RES_STRING_POOL_TYPE = 0x0001;
const RES_XML_START_ELEMENT_TYPE = 0x0102;
const UTF8_FLAG = 0x100;
const TYPE_STRING = 0x03;
const TYPE_INT_BOOLEAN = 0x12;
const NO_INDEX = 0xffffffff;

function readStringPool(data: Buffer, start: number): string[] {
  const stringCount = data.readUInt32LE(start + 8);
  const flags = data.readUInt32LE(start + 16);
  const stringsStart = start + data.readUInt32LE(start + 20);
  const headerSize = data.readUInt16LE(start + 2);
  const utf8 = (flags & UTF8_FLAG) !== 0;
  const strings: string[] = [];
  for (let index = 0; index < stringCount; index++) {
    let offset = stringsStart + data.readUInt32LE(start + headerSize + index * 4);
    if (utf8) {
      // Two lengths, each one or two bytes: UTF-16 units, then UTF-8 bytes.
      offset += (data[offset] as number) & 0x80 ? 2 : 1;
      let length = data[offset] as number;
      if (length & 0x80) {
        length = ((length & 0x7f) << 8) | (data[offset + 1] as number);
        offset += 2;
      } else offset += 1;
      strings.push(data.toString('utf8', offset, offset + length));
    } else {
      let length = data.readUInt16LE(offset);
      if (length & 0x8000) {
        length = ((length & 0x7fff) << 16) | data.readUInt16LE(offset + 2);
        offset += 4;
      } else offset += 2;
      strings.push(data.toString('utf16le', offset, offset + length * 2));
    }
  }
  return strings;
}

/**
 * Reads the start tags of a compiled (binary) Android XML document such as an APK's
 * `AndroidManifest.xml`. Returns undefined when the data is not one.
 */
export function readBinaryXml(data: Buffer): BinaryXmlElement[] | undefined {
  if (data.length < 8 || data.readUInt16LE(0) !== RES_XML_TYPE) return undefined;
  const elements: BinaryXmlElement[] = [];
  let strings: string[] = [];
  let offset = data.readUInt16LE(2);
  try {
    while (offset + 8 <= data.length) {
      const type = data.readUInt16LE(offset);
      const headerSize = data.readUInt16LE(offset + 2);
      const size = data.readUInt32LE(offset + 4);
      if (size < 8) return undefined;
      if (type === RES_STRING_POOL_TYPE) strings = readStringPool(data, offset);
      else if (type === RES_XML_START_ELEMENT_TYPE) {
        const body = offset + headerSize;
        const name = strings[data.readUInt32LE(body + 4)] ?? '';
        const attributeStart = data.readUInt16LE(body + 8);
        const attributeSize = data.readUInt16LE(body + 10);
        const attributeCount = data.readUInt16LE(body + 12);
        const attributes: Record<string, string> = {};
        for (let index = 0; index < attributeCount; index++) {
          const at = body + attributeStart + index * attributeSize;
          const attributeName = strings[data.readUInt32LE(at + 4)] ?? '';
          const raw = data.readUInt32LE(at + 8);
          const dataType = data[at + 15] as number;
          const value = data.readUInt32LE(at + 16);
          if (raw !== NO_INDEX) attributes[attributeName] = strings[raw] ?? '';
          else if (dataType === TYPE_STRING) attributes[attributeName] = strings[value] ?? '';
          else if (dataType === TYPE_INT_BOOLEAN) attributes[attributeName] = String(value !== 0);
          else attributes[attributeName] = String(value | 0);
        }
        elements.push({ name, attributes });
      }
      offset += size;
    }
  } catch {
    return undefined;
  }
  return elements;
}
