// Artifacts (files tool calls linked) as the resource template `toolsys://data/{+path}`.
import { principalKey } from '@toolsys/core-tool-registry';
import { ARTIFACT_URI_PREFIX } from '../server/artifact-uri.js';
import {
  type OfferingCaller,
  OfferingError,
  type ResourceContents,
  type ResourceTemplateInfo,
} from '../server/offerings.js';
import type { RecentArtifacts } from '../server/recent-artifacts.js';

/** The artifact resource template: a file of the data directory a call of the caller linked. */
export const ARTIFACT_TEMPLATE: ResourceTemplateInfo = Object.freeze({
  uriTemplate: `${ARTIFACT_URI_PREFIX}{+path}`,
  name: 'artifact',
  title: 'Artifact',
  description:
    'A file a tool call of yours linked in its result (screenshot, snapshot, log, download), by its path in the data directory. Only the last 1,000 linked are kept.',
});

/** Where artifacts are read from. */
export interface ArtifactSource {
  /** The deployment's data directory. */
  readonly dataDir: string;
  /** The artifacts linked so far, each with the principal whose call linked it. */
  readonly linked: RecentArtifacts;
}

/** Whether `uri` names an artifact (whether or not one is there). */
export function isArtifactUri(uri: string): boolean {
  return uri.startsWith(ARTIFACT_URI_PREFIX);
}

/**
 * The contents of the artifact at `uri` when the caller's own call linked it; undefined for one
 * never linked, linked too long ago, or linked by another principal (the same answer). A URI
 * that names no file of the data directory is `invalid_params`.
 */
export async function readArtifact(
  uri: string,
  source: ArtifactSource,
  caller: OfferingCaller,
): Promise<readonly ResourceContents[] | undefined> {
  // Loaded on first use: the reader brings the protocol's error type with it.
  const { readArtifactResource, isResourceNotFound } = await import(
    '../server/artifact-resource.js'
  );
  try {
    const result = await readArtifactResource(uri, {
      dataDir: source.dataDir,
      linked: source.linked,
      owner: principalKey(caller.principal),
    });
    return result.contents as readonly ResourceContents[];
  } catch (error) {
    if (isResourceNotFound(error)) return undefined;
    throw new OfferingError('invalid_params', (error as Error).message);
  }
}

/** Whether the caller may read the artifact at `uri` (its own call linked it, still kept). */
export function hasArtifact(uri: string, source: ArtifactSource, caller: OfferingCaller): boolean {
  return source.linked.get(uri, principalKey(caller.principal)) !== undefined;
}

/** The data-directory paths of the caller's own kept artifacts, newest first. */
export function artifactPaths(source: ArtifactSource, caller: OfferingCaller): string[] {
  const owner = principalKey(caller.principal);
  return source.linked
    .list()
    .filter((artifact) => artifact.owner === owner)
    .map((artifact) => artifact.relativePath);
}
