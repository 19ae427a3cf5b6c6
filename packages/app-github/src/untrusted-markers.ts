import { untrustedMarkers } from '@toolsys/core-tool-registry/text';

const GITHUB_MARKERS = untrustedMarkers('github');

/** The opening marker of GitHub content in a result. */
export const UNTRUSTED_OPEN = GITHUB_MARKERS.open;
/** The closing marker of GitHub content in a result. */
export const UNTRUSTED_CLOSE = GITHUB_MARKERS.close;
/** The line that tells the model what the markers mean; put once at the top of a result. */
export const UNTRUSTED_NOTICE = GITHUB_MARKERS.notice;
