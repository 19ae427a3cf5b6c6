import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { renderResult, type ToolArtifact, type ToolResult } from '../contract/tool-result.js';

/** Images up to this size (1 MiB) are sent to the model inline by default, as the host does. */
export const DEFAULT_INLINE_IMAGE_BYTES = 1024 * 1024;

/** The image types sent inline: those the providers with image input all read. */
const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
]);

/** An image artifact read for the model: its media type and its bytes in base64. */
export interface InlineImage {
  readonly mimeType: string;
  readonly data: string;
}

/**
 * The text a model reads for a result: {@link renderResult}, followed by one `File:` line per
 * artifact the text does not already name, so a file the tool wrote is never lost on the way to
 * a provider that takes text only.
 */
export function renderForModel(result: ToolResult): string {
  const text = renderResult(result);
  if (!result.ok || result.artifacts === undefined) return text;
  const unnamed = result.artifacts.filter((artifact) => !text.includes(artifact.path));
  return [text, ...unnamed.map(fileLine)].join('\n');
}

function fileLine(artifact: ToolArtifact): string {
  const about = artifact.description === undefined ? '' : `, ${artifact.description}`;
  return `File: ${artifact.path} (${artifact.mimeType}${about})`;
}

/**
 * The image artifacts of a result that are at most `maxBytes` each, read for inline sending. A
 * file that is missing, a link, not a regular file or too large is left out (the text still names
 * it); `maxBytes` 0 reads none.
 */
export async function readInlineImages(
  artifacts: readonly ToolArtifact[] | undefined,
  maxBytes: number,
): Promise<InlineImage[]> {
  const images: InlineImage[] = [];
  if (artifacts === undefined || maxBytes <= 0) return images;
  for (const artifact of artifacts) {
    if (!INLINE_IMAGE_TYPES.has(artifact.mimeType)) continue;
    const bytes = await readBounded(artifact.path, maxBytes);
    if (bytes !== undefined)
      images.push({ mimeType: artifact.mimeType, data: bytes.toString('base64') });
  }
  return images;
}

/** The whole regular file at `path` when it holds at most `maxBytes`; undefined otherwise. */
async function readBounded(path: string, maxBytes: number): Promise<Buffer | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: a FIFO put in the file's place must not block the call; it is refused below.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.size > maxBytes) return undefined;
    const buffer = Buffer.alloc(stats.size);
    const { bytesRead } = await handle.read(buffer, 0, stats.size, 0);
    // A file that changed size while read is a file still being written: not sent half.
    return bytesRead === stats.size ? buffer : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
