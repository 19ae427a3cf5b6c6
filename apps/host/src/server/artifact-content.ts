import { realpath } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ContentBlock } from '@modelcontextprotocol/server';
import type { ToolArtifact } from '@toolsys/core-tool-registry';
import { DEFAULT_INLINE_IMAGE_BYTES } from '@toolsys/core-tool-registry/adapters';
import { isTextMimeType } from './artifact-resource.js';
import { artifactUri, pathInDataDir } from './artifact-uri.js';
import { DataFileError, openDataFile, readDataFile } from './data-file.js';
import type { LinkedArtifact } from './recent-artifacts.js';

/** Images up to this size (1 MiB) are also sent inline, for clients that do not read resources. */
export const MAX_INLINE_IMAGE_BYTES = DEFAULT_INLINE_IMAGE_BYTES;

/** The image types sent inline whether or not the tool asks. */
const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/webp']);

/** Options for {@link artifactContent}. */
export interface ArtifactContentOptions {
  /** The deployment's data directory: only files inside it are linked. */
  readonly dataDir: string;
  /** Told about each artifact that gets no link, and why (for the operator's log). */
  readonly onUnlinked: (artifact: ToolArtifact, reason: string) => void;
  /** The principal of the call (`principalKey`): the only one that may read the links. */
  readonly owner: string;
}

/**
 * The MCP content blocks for a result's artifacts: per artifact a `resource_link`
 * (`toolsys://data/<path>`, the file name, media type, description and size), followed by an
 * `image` block when it is a PNG, JPEG or WebP of at most {@link MAX_INLINE_IMAGE_BYTES}, and
 * any artifact the tool marked `inline` of that size as an image, audio or embedded resource. An
 * artifact outside the data directory, missing, a link or not a regular file gets no block.
 */
export async function artifactContent(
  artifacts: readonly ToolArtifact[],
  options: ArtifactContentOptions,
): Promise<{ content: ContentBlock[]; linked: LinkedArtifact[] }> {
  const content: ContentBlock[] = [];
  const linked: LinkedArtifact[] = [];
  if (artifacts.length === 0) return { content, linked };
  const realDataDir = await realpath(options.dataDir).catch(() => options.dataDir);
  for (const artifact of artifacts) {
    const relativePath =
      pathInDataDir(options.dataDir, artifact.path) ?? pathInDataDir(realDataDir, artifact.path);
    if (relativePath === undefined) {
      options.onUnlinked(artifact, 'it is not inside the data directory');
      continue;
    }
    let file: Awaited<ReturnType<typeof openDataFile>>;
    try {
      file = await openDataFile(options.dataDir, relativePath, {
        maxBytes: Number.MAX_SAFE_INTEGER,
      });
    } catch (error) {
      options.onUnlinked(artifact, (error as Error).message);
      continue;
    }
    try {
      const link: LinkedArtifact = {
        uri: artifactUri(relativePath),
        relativePath,
        name: basename(relativePath),
        mimeType: artifact.mimeType,
        ...(artifact.description !== undefined ? { description: artifact.description } : {}),
        size: file.size,
        owner: options.owner,
      };
      linked.push(link);
      content.push({
        type: 'resource_link',
        uri: link.uri,
        name: link.name,
        mimeType: link.mimeType,
        ...(link.description !== undefined ? { description: link.description } : {}),
        size: link.size,
      });
      const inline = artifact.inline === true || INLINE_IMAGE_TYPES.has(artifact.mimeType);
      if (inline && file.size <= MAX_INLINE_IMAGE_BYTES) {
        const bytes = await readDataFile(file, MAX_INLINE_IMAGE_BYTES).catch((error: unknown) => {
          if (error instanceof DataFileError) return undefined;
          throw error;
        });
        if (bytes !== undefined) content.push(inlineBlock(link.uri, artifact.mimeType, bytes));
      }
    } finally {
      await file.handle.close();
    }
  }
  return { content, linked };
}

/** An artifact's bytes as a content block: image, audio, else an embedded resource. */
function inlineBlock(uri: string, mimeType: string, bytes: Buffer): ContentBlock {
  const data = bytes.toString('base64');
  if (mimeType.startsWith('image/')) return { type: 'image', data, mimeType };
  if (mimeType.startsWith('audio/')) return { type: 'audio', data, mimeType };
  if (isTextMimeType(mimeType)) {
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      return { type: 'resource', resource: { uri, mimeType, text } };
    } catch {
      // Not UTF-8 after all: sent as bytes.
    }
  }
  return { type: 'resource', resource: { uri, mimeType, blob: data } };
}
