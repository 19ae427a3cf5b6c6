/**
 * Text a tool hands the model from outside the deployment: untrusted-content markers and cleaning,
 * secret scrubbing (whole values and streams), page resumption, recent captures and display URLs.
 * Published as `@toolsys/core-tool-registry/text`.
 */
export { displayUrl } from './display-url.js';
export { decidePageResume, type PageResume, type PageResumeOptions } from './page-resume.js';
export { RecentCaptures, type RecentCapturesOptions } from './recent-captures.js';
export {
  containsSecretShape,
  REDACTED,
  SECRET_VALUE_SHAPES,
  scrubSecrets,
  scrubSecretsDeep,
  scrubToolReturn,
  TRANSFORMED_SCAN_MAX_CHARS,
  withSecretScrubbing,
} from './secret-scrubber.js';
export {
  createSecretStreamScrubber,
  type SecretStreamScrubber,
  type SecretStreamScrubberOptions,
} from './secret-stream-scrubber.js';
export {
  type CleanedText,
  CleaningTally,
  cleanUntrustedLine,
  cleanUntrustedText,
  defuseMarkers,
  escapeInvisible,
  markUntrusted,
  type UntrustedMarkers,
  type UntrustedSource,
  untrustedMarkers,
} from './untrusted-text.js';
