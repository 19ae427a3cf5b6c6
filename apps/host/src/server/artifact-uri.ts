import { isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * The prefix of the URI under which the MCP server links and serves an artifact: the file's path
 * relative to the data directory follows, each segment percent-encoded
 * (`toolsys://data/screenshots/home%20page.png`).
 */
export const ARTIFACT_URI_PREFIX = 'toolsys://data/';

/** The URI of a file of the data directory, from its path relative to that directory. */
export function artifactUri(relativePath: string): string {
  return `${ARTIFACT_URI_PREFIX}${relativePath.split(sep).map(encodeURIComponent).join('/')}`;
}

/** What {@link parseArtifactUri} found: the relative path, or why the URI names no artifact. */
export type ParsedArtifactUri =
  | { readonly ok: true; readonly relativePath: string }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads the data-directory path out of an artifact URI. Segments are decoded one by one, so an
 * encoded `/` cannot join two; an empty, `.` or `..` segment, a query, a fragment or a NUL
 * character is refused rather than normalised, so that a URI names exactly one file under the
 * data directory.
 */
export function parseArtifactUri(uri: string): ParsedArtifactUri {
  if (!uri.startsWith(ARTIFACT_URI_PREFIX)) {
    return { ok: false, reason: `it does not start with ${ARTIFACT_URI_PREFIX}` };
  }
  const rest = uri.slice(ARTIFACT_URI_PREFIX.length);
  if (/[?#]/.test(rest)) return { ok: false, reason: 'it has a query or a fragment' };
  const segments: string[] = [];
  for (const encoded of rest.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(encoded);
    } catch {
      return { ok: false, reason: `"${encoded}" is not valid percent-encoding` };
    }
    if (segment === '' || segment === '.' || segment === '..') {
      return { ok: false, reason: 'it has an empty, "." or ".." path segment' };
    }
    if (segment.includes('/') || segment.includes('\\') || segment.includes('\0')) {
      return { ok: false, reason: 'a path segment holds an encoded "/", "\\" or NUL' };
    }
    segments.push(segment);
  }
  return { ok: true, relativePath: segments.join('/') };
}

/**
 * The path of `path` relative to the data directory, or undefined when it does not lie strictly
 * inside it. Lexical only: links are checked when the file is opened.
 */
export function pathInDataDir(dataDir: string, path: string): string | undefined {
  if (!isAbsolute(path)) return undefined;
  const inside = relative(resolve(dataDir), resolve(path));
  if (inside === '' || isAbsolute(inside) || inside === '..' || inside.startsWith(`..${sep}`)) {
    return undefined;
  }
  return inside;
}
