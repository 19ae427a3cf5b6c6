/** Characters kept of each end of a long stream: enough for any head or tail a result keeps. */
const KEEP_CHARACTERS = 1024 * 1024;

/**
 * What elision needs of one stream of any length, in bounded memory: all of it up to 1 MiB of
 * characters, else its first and its last 1 MiB, and its size in bytes.
 */
export class StreamedText {
  #head = '';
  #tail = '';
  #bytes = 0;
  #overflowed = false;

  /** Adds streamed text. */
  append(text: string): void {
    this.#bytes += Buffer.byteLength(text);
    if (!this.#overflowed) {
      const room = KEEP_CHARACTERS - this.#head.length;
      if (text.length <= room) {
        this.#head += text;
        return;
      }
      this.#head += text.slice(0, room);
      this.#overflowed = true;
      this.#tail = text.slice(room);
    } else {
      this.#tail += text;
    }
    // Trimmed only when twice too long, so that many small pieces cost linear time.
    if (this.#tail.length > 2 * KEEP_CHARACTERS) this.#tail = this.#tail.slice(-KEEP_CHARACTERS);
  }

  /** Bytes streamed in all. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether {@link StreamedText.text} is all of the stream (else its two ends joined). */
  get complete(): boolean {
    return !this.#overflowed;
  }

  /** The whole stream, or its first and last 1 MiB joined when it was longer. */
  get text(): string {
    return this.#head + this.#tail;
  }
}

/** What a call streamed while it ran, per stream. */
export interface StreamedOutput {
  readonly stdout: StreamedText;
  readonly stderr: StreamedText;
}

/** An empty {@link StreamedOutput}. */
export function createStreamedOutput(): StreamedOutput {
  return { stdout: new StreamedText(), stderr: new StreamedText() };
}

/** Length of the probe used to find where a truncated head starts and a tail ends. */
const PROBE_LENGTH = 200;

/** Bounds the search for where a head starts and a tail ends. */
const MAX_PROBE_TRIES = 64;

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
    const recorded = streamed[stream];
    const full = recorded.text;
    const body = full.endsWith('\n') ? full.slice(0, -1) : full;
    if (body.length === 0) continue;
    const note = `(${recorded.bytes} bytes of ${stream}, shown above)`;
    const exact = recorded.complete ? indexOfLines(text, body) : -1;
    const span =
      exact !== -1 ? { start: exact, end: exact + body.length } : truncatedSpan(text, body);
    if (span) {
      const { start, end } = withinMarkers(text, span);
      text = `${text.slice(0, start)}${note}${text.slice(end)}`;
    }
  }
  return text;
}

const OUTPUT_OPEN = '<untrusted-terminal-content>\n';
const OUTPUT_CLOSE = '\n</untrusted-terminal-content>';

/** Widens a span of program output to the untrusted-content markers right around it, if any. */
function withinMarkers(
  text: string,
  span: { start: number; end: number },
): { start: number; end: number } {
  const opened = text.slice(span.start - OUTPUT_OPEN.length, span.start) === OUTPUT_OPEN;
  const closed = text.slice(span.end, span.end + OUTPUT_CLOSE.length) === OUTPUT_CLOSE;
  return opened && closed
    ? { start: span.start - OUTPUT_OPEN.length, end: span.end + OUTPUT_CLOSE.length }
    : span;
}

/** Where a head + omitted marker + tail kept of `body` sits in `text`, if it does. */
function truncatedSpan(text: string, body: string): { start: number; end: number } | undefined {
  if (body.length < PROBE_LENGTH) return undefined;
  const headProbe = body.slice(0, PROBE_LENGTH);
  const tailProbe = body.slice(-PROBE_LENGTH);
  for (const marker of text.matchAll(OMITTED_MARKER)) {
    const markerStart = marker.index;
    const markerEnd = markerStart + marker[0].length;
    // The head starts at the first place from which the text up to the marker begins the output.
    let start = -1;
    for (
      let at = text.indexOf(headProbe), tries = 0;
      at !== -1 && at < markerStart && tries < MAX_PROBE_TRIES;
      at = text.indexOf(headProbe, at + 1), tries += 1
    ) {
      if (isLineStart(text, at) && body.startsWith(text.slice(at, markerStart))) {
        start = at;
        break;
      }
    }
    if (start === -1) continue;
    // The tail ends at the last place up to which the text after the marker ends the output.
    let end = -1;
    for (
      let at = text.lastIndexOf(tailProbe), tries = 0;
      at >= markerEnd && tries < MAX_PROBE_TRIES;
      at = at === 0 ? -1 : text.lastIndexOf(tailProbe, at - 1), tries += 1
    ) {
      const candidate = at + PROBE_LENGTH;
      if (isLineEnd(text, candidate) && body.endsWith(text.slice(markerEnd, candidate))) {
        end = candidate;
        break;
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
