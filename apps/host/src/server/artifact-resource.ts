import {
  ProtocolError,
  type ReadResourceResult,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import { parseArtifactUri } from './artifact-uri.js';
import { DataFileError, type DataFileProblem, openDataFile, readDataFile } from './data-file.js';
import type { RecentArtifacts } from './recent-artifacts.js';

/**
 * The largest artifact `resources/read` sends (32 MiB): its base64 form must fit the 64 MiB
 * message limit of the servers.
 */
export const MAX_RESOURCE_BYTES = 32 * 1024 * 1024;

/** Whether `error` is the protocol's "resource not found" (whatever code the SDK gives it). */
export function isResourceNotFound(error: unknown): boolean {
  return error instanceof ResourceNotFoundError;
}

/** JSON-RPC: invalid params. */
const INVALID_PARAMS = -32602;

const TEXT_TYPES: ReadonlySet<string> = new Set([
  'application/json',
  'application/x-ndjson',
  'application/xml',
  'application/yaml',
  'application/javascript',
]);

/** Whether a media type is text (sent as `text`, not as base64 `blob`). */
export function isTextMimeType(mimeType: string): boolean {
  const type = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  return (
    type.startsWith('text/') ||
    TEXT_TYPES.has(type) ||
    type.endsWith('+json') ||
    type.endsWith('+xml')
  );
}

const NEXT_STEP: Record<DataFileProblem, string> = {
  missing: 'Call the tool again to produce a new file.',
  outside: 'Only files inside the data directory are served; call the tool again.',
  link: 'Links are never followed; call the tool again to produce a new file.',
  not_file: 'Only regular files are served; call the tool again.',
  too_large: `Only files up to ${MAX_RESOURCE_BYTES / (1024 * 1024)} MiB are sent; read the file on the server's machine, or ask the tool for a smaller one.`,
};

/**
 * Answers `resources/read` for an artifact URI: the file's bytes as `text` (text media types that
 * are valid UTF-8) or base64 `blob`. Only artifacts this host linked in a call result (and still
 * keeps in `linked`) are served; the file is opened race-free and read bounded (see
 * {@link openDataFile}). Only the principal whose call linked an artifact may read it: for anyone
 * else it is not found, in the words used for a link never returned. Every refusal is an MCP error
 * whose message says why and what to do.
 */
export async function readArtifactResource(
  uri: string,
  options: { dataDir: string; linked: RecentArtifacts; owner: string },
): Promise<ReadResourceResult> {
  const parsed = parseArtifactUri(uri);
  if (!parsed.ok) {
    throw new ProtocolError(
      INVALID_PARAMS,
      `Cannot read ${uri}: ${parsed.reason}. This server serves only the toolsys://data/… links it returned in tool results.`,
    );
  }
  const artifact = options.linked.get(uri, options.owner);
  if (artifact === undefined) {
    throw new ResourceNotFoundError(
      uri,
      `Resource ${uri} not found: this server did not return it as an artifact, or returned it too long ago. Call the tool again for a fresh link; resources/list shows the recent ones.`,
    );
  }
  let bytes: Buffer;
  try {
    const file = await openDataFile(options.dataDir, parsed.relativePath, {
      maxBytes: MAX_RESOURCE_BYTES,
    });
    try {
      bytes = await readDataFile(file, MAX_RESOURCE_BYTES);
    } finally {
      await file.handle.close();
    }
  } catch (error) {
    if (!(error instanceof DataFileError)) throw error;
    const { problem } = error;
    const message = `Cannot read ${uri}: ${error.message}. ${NEXT_STEP[problem]}`;
    if (problem === 'missing') throw new ResourceNotFoundError(uri, message);
    throw new ProtocolError(INVALID_PARAMS, message, { uri });
  }
  const { mimeType } = artifact;
  if (isTextMimeType(mimeType)) {
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      return { contents: [{ uri, mimeType, text }] };
    } catch {
      // Not UTF-8 after all: send the bytes as they are.
    }
  }
  return { contents: [{ uri, mimeType, blob: bytes.toString('base64') }] };
}
