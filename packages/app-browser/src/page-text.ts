import {
  cleanUntrustedLine,
  cleanUntrustedText,
  markUntrusted,
  scrubSecrets as scrubSecretText,
  untrustedMarkers,
} from '@toolsys/core-tool-registry/text';
import { compileLinearRegex } from '@toolsys/platform';

/** The markers and notice of web-page content: `<untrusted-web-page-content>` … */
export const WEB_PAGE_MARKERS = untrustedMarkers('web-page');

/**
 * Replaces secrets in a text by `[redacted]`: the configured values (4 characters or more) and
 * every value shaped like a credential, through the one scrubber of the core package.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  return scrubSecretText(text, secrets);
}

/**
 * Looks like the tools' own ref, cut or hidden-text marker inside page text (`[ref=e3]`,
 * `[cut: …`, `[hidden: …`): the page could point a model at another element, fake the end of a
 * page, or pass its visible text off as hidden.
 */
const FORGED_TOOL_MARK = /\[(?=\s*(?:ref\s*=|cut\s*:|hidden\s*:|interactive elements\b))/gi;

/**
 * One piece of page text (a name, a text run, an attribute value, a title) as the tools show it
 * and search it: cleaned with the core cleaner (invisible, bidi, tag and control characters and
 * hidden comments removed), white space collapsed to single spaces, secrets replaced by
 * `[redacted]` (before any shortening, so no part of a secret is left at a cut), a `[` that
 * starts something like the tools' own `[ref=…]` or `[cut: …]` shown as `(`, and `](` shown as
 * `] (` (never an inline link of the tools, `[label](e12)`).
 */
export function cleanPageText(text: string, secrets: readonly string[] = []): string {
  const cleaned = cleanUntrustedText(text).text.replace(/\s+/g, ' ').trim();
  return scrubSecrets(cleaned, secrets)
    .replace(FORGED_TOOL_MARK, '(')
    .replaceAll('](', FORGED_LINK_JOIN);
}

/**
 * How `](` of page text is shown: `] (`. The tools' inline links (`[label](e12)`) are then the
 * only `](` in a snapshot, so no page text reads as a link to one of its refs.
 */
const FORGED_LINK_JOIN = '] (';

/**
 * One line of outside text (a console message, a dialog's text, a URL, an error message) for a
 * line-oriented result: secrets replaced first, then {@link cleanUntrustedLine} (invisible
 * characters removed, line breaks and controls shown as escapes, cut to `maxLength`).
 */
export function cleanPageLine(
  text: string,
  secrets: readonly string[] = [],
  maxLength = 300,
): string {
  return cleanUntrustedLine(scrubSecrets(text, secrets), maxLength);
}

/**
 * A piece of page text quoted on one line (a title, a dialog's text): secrets replaced, then
 * JSON-quoted (quotes and line breaks escaped) and cleaned as a line, cut to `maxLength`.
 */
export function quotePageText(
  text: string,
  secrets: readonly string[] = [],
  maxLength = 300,
): string {
  return cleanUntrustedLine(JSON.stringify(scrubSecrets(text, secrets)), maxLength);
}

/**
 * Wraps lines of page content in the web-page markers. Marker look-alikes inside are defused;
 * the notice is added once per result by {@link withWebPageNotice}.
 */
export function webPageBlock(lines: readonly string[]): string {
  return markUntrusted(lines.join('\n'), 'web-page');
}

/**
 * Puts the web-page notice once near the head of a result's text when it holds a web-page block:
 * after its first line (the tool's own status line).
 */
export function withWebPageNotice(text: string): string {
  if (!text.includes(WEB_PAGE_MARKERS.open)) return text;
  if (text.includes(WEB_PAGE_MARKERS.notice)) return text;
  const firstBreak = text.indexOf('\n');
  if (firstBreak < 0) return `${WEB_PAGE_MARKERS.notice}\n${text}`;
  return `${text.slice(0, firstBreak)}\n${WEB_PAGE_MARKERS.notice}${text.slice(firstBreak)}`;
}

/** Whether a line of a snapshot matches: case-insensitive text, or a pattern. */
export type LineMatcher = (line: string) => boolean;

/**
 * The matcher of `browser_snapshot`'s `find`: plain text, case-insensitive, or a regular
 * expression compiled for the linear-time engine (no pattern can hold the server; backreferences
 * and lookahead are refused as INVALID_ARGUMENT on `find`).
 */
export function compileFind(find: string, regex: boolean): LineMatcher {
  if (!regex) {
    const needle = find.toLowerCase();
    return (line) => line.toLowerCase().includes(needle);
  }
  const pattern = compileLinearRegex(find, { ignoreCase: true }, 'find');
  return (line) => pattern.matcher(line).find();
}
