export {
  type CleanedText,
  CleaningTally,
  cleanUntrustedText,
  markUntrusted,
} from '@toolsys/core-tool-registry/text';
export { type CachedResponse, EtagCache } from './etag-cache.js';
export {
  GitHubClient,
  type GitHubClientOptions,
  type GitHubClientStats,
  type GitHubOctokit,
} from './github-client.js';
export {
  describeGitHubFailure,
  type GitHubFailureContext,
  type GitHubTarget,
} from './github-failure.js';
export {
  type GitHubTokenLookup,
  type GitHubTokenSource,
  type ResolvedGitHubToken,
  type ResolveGitHubTokenOptions,
  resolveGitHubToken,
} from './github-token.js';
export {
  decodeCursor,
  encodeCursor,
  fingerprintQuery,
  nextPageFromLink,
  type PageCursor,
} from './page-cursor.js';
export { RepositoryScope, type RepositoryScopeOptions } from './repository-scope.js';
export {
  type GitHubPackageConfig,
  gitHubPackageConfigSchema,
  toolPackage,
} from './tool-package.js';
export {
  createGitHubTools,
  GITHUB_WRITE_TOOL_IDS,
  type GitHubToolsOptions,
} from './tools/index.js';
export { UNTRUSTED_CLOSE, UNTRUSTED_NOTICE, UNTRUSTED_OPEN } from './untrusted-markers.js';
export { probeWriteAccess, type WriteAccess } from './write-access.js';
