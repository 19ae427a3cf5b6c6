/** What a call streamed while it ran, per stream. */
export interface StreamedOutput {
  stdout: string;
  stderr: string;
}

/** Length of the probe used to find where a truncated head starts and a tail ends. */
const PROBE_LENGTH = 200;

/** Bounds the search for the end of a tail made of one repeated pattern. */
const MAX_TAIL_TRIES = 64;

/** The marker a truncated capture puts between its head and its tail. */
const OMITTED_MARKER = /\n… \[\d+ bytes omitted\] …\n/g;

/**
 * Removes from a rendered result the output that was already streamed to the same terminal, so
 * that a person does not read it twice. The whole streamed text (or the head and tail a
 * truncated capture kept of it) is replaced by a note saying where it went. Text that does not
 * match what was streamed is left as it is.
 */
export function elideStreamedOutput(rendered: string, streamed: StreamedOutput): string {
  let text = rendered;
  for (const stream of ['stdout', 'stderr'] as const) {
    const full = streamed[stream];
    const body = full.endsWith('\n') ? full.slice(0, -1) : full;
    if (body.length === 0) continue;
    const note = `(${Buffer.byteLength(full)} bytes of ${stream}, shown above)`;
    const exact = indexOfLines(text, body);
    if (exact !== -1) {
      text = `${text.slice(0, exact)}${note}${text.slice(exact + body.length)}`;
      continue;
    }
    const span = truncatedSpan(text, body);
    if (span) text = `${text.slice(0, span.start)}${note}${text.slice(span.end)}`;
  }
  return text;
}

/** Where a head + omitted marker + tail kept of `body` sits in `text`, if it does. */
function truncatedSpan(text: string, body: string): { start: number; end: number } | undefined {
  if (body.length < PROBE_LENGTH) return undefined;
  const headProbe = body.slice(0, PROBE_LENGTH);
  const tailProbe = body.slice(-PROBE_LENGTH);
  for (const marker of text.matchAll(OMITTED_MARKER)) {
    const markerStart = marker.index;
    const markerEnd = markerStart + marker[0].length;
    const start = text.lastIndexOf(headProbe, markerStart);
    if (
      start === -1 ||
      !isLineStart(text, start) ||
      !body.startsWith(text.slice(start, markerStart))
    )
      continue;
    // The tail ends at the furthest place where the kept text is still the end of the output.
    let end = -1;
    let tries = 0;
    for (
      let at = text.indexOf(tailProbe, markerEnd);
      at !== -1 && tries < MAX_TAIL_TRIES;
      at = text.indexOf(tailProbe, at + 1), tries += 1
    ) {
      const candidate = at + PROBE_LENGTH;
      if (isLineEnd(text, candidate) && body.endsWith(text.slice(markerEnd, candidate))) {
        end = candidate;
      }
    }
    if (end !== -1) return { start, end };
  }
  return undefined;
}

/** The first place where `body` stands on whole lines of `text`, or -1. */
function indexOfLines(text: string, body: string): number {
  for (let at = text.indexOf(body); at !== -1; at = text.indexOf(body, at + 1)) {
    if (isLineStart(text, at) && isLineEnd(text, at + body.length)) return at;
  }
  return -1;
}

function isLineStart(text: string, at: number): boolean {
  return at === 0 || text[at - 1] === '\n';
}

function isLineEnd(text: string, at: number): boolean {
  return at === text.length || text[at] === '\n';
}
