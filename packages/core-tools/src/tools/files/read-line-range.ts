// Reads a line range of a file as a stream: stops collecting at a byte cap, still counts the lines
// (up to a limit), and recognises a binary file by a NUL byte near its start.
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { BINARY_SNIFF_BYTES } from './shared.js';

const COUNT_LINES_LIMIT = 256 * 1024 * 1024;

/** What {@link readLineRange} found. */
export interface ReadOutcome {
  binary: boolean;
  lines: string[];
  firstLine: number;
  lastLine: number;
  totalLines: number | undefined;
  truncatedByBytes: boolean;
}

/**
 * The lines `startLine`..`endLine` (1-based, inclusive) of `file`, at most `maxBytes` of them; a
 * single line longer than the cap is cut. `totalLines` is undefined past 256 MiB.
 */
export async function readLineRange(
  file: string,
  options: {
    startLine: number;
    endLine: number | undefined;
    maxBytes: number;
    signal: AbortSignal;
  },
): Promise<ReadOutcome> {
  const stream = createReadStream(file, { highWaterMark: 64 * 1024 });
  const decoder = new StringDecoder('utf8');
  const lines: string[] = [];
  let outBytes = 0;
  let collecting = true;
  let truncatedByBytes = false;
  let lastLine = options.startLine - 1;
  let lineNumber = 1;
  let pending = '';
  let newlines = 0;
  let bytesRead = 0;
  let lastByte = -1;
  let counted = true;
  let first = true;

  const take = (line: string, number: number) => {
    if (!collecting || number < options.startLine) return;
    if (options.endLine !== undefined && number > options.endLine) {
      collecting = false;
      return;
    }
    const size = Buffer.byteLength(line) + 1;
    if (outBytes + size > options.maxBytes) {
      truncatedByBytes = true;
      collecting = false;
      if (lines.length === 0) {
        // A single line longer than the cap: show its beginning.
        lines.push(Buffer.from(line).subarray(0, options.maxBytes).toString('utf8'));
        lastLine = number;
      }
      return;
    }
    lines.push(line);
    outBytes += size;
    lastLine = number;
  };

  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      options.signal.throwIfAborted();
      if (first) {
        first = false;
        if (chunk.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
          return {
            binary: true,
            lines: [],
            firstLine: 0,
            lastLine: 0,
            totalLines: undefined,
            truncatedByBytes: false,
          };
        }
      }
      bytesRead += chunk.length;
      lastByte = chunk[chunk.length - 1] ?? lastByte;
      let at = chunk.indexOf(10);
      while (at >= 0) {
        newlines += 1;
        at = chunk.indexOf(10, at + 1);
      }
      if (collecting) {
        const parts = (pending + decoder.write(chunk)).split('\n');
        pending = parts.pop() ?? '';
        for (const part of parts) {
          take(part, lineNumber);
          lineNumber += 1;
        }
        // A line longer than the cap is never kept whole: cut it now instead of buffering it.
        if (collecting && pending.length > options.maxBytes + 4_096) {
          if (lineNumber >= options.startLine) take(pending, lineNumber);
          else pending = '';
        }
      } else if (bytesRead > COUNT_LINES_LIMIT) {
        counted = false;
        break;
      }
    }
  } finally {
    stream.destroy();
  }
  const rest = pending + decoder.end();
  if (collecting && rest !== '') take(rest, lineNumber);
  const totalLines = counted ? newlines + (bytesRead > 0 && lastByte !== 10 ? 1 : 0) : undefined;
  return {
    binary: false,
    lines,
    firstLine: options.startLine,
    lastLine,
    totalLines,
    truncatedByBytes,
  };
}
