import { ToolErrorCode } from '@toolsys/core-tool-registry';
import { AndroidDeviceError } from '../adb-errors.js';
import { MAX_DUMP_BYTES } from '../ui-backend.js';

/**
 * Most bytes of the WebDriver answer that carries the page source: the source is a JSON string,
 * where every quote of the XML is escaped (`\"`) and a character may be `\uXXXX`, so the answer of
 * a source of {@link MAX_DUMP_BYTES} may be several times larger.
 */
export const MAX_SOURCE_ANSWER_BYTES = 6 * MAX_DUMP_BYTES;

/** Options for {@link readBoundedPageSource}. */
export interface BoundedPageSourceOptions {
  /** The Appium server's URL, with its base path if any. */
  readonly serverUrl: string;
  /** The WebDriver session id. */
  readonly sessionId: string;
  /** Ends the request (the caller's cancel or the command time limit). */
  readonly signal?: AbortSignal | undefined;
  /** Most bytes of the page source itself. Default {@link MAX_DUMP_BYTES}. */
  readonly maxBytes?: number;
}

/**
 * Reads a session's page source (`GET /session/:id/source`) as the adb dump is read: the answer
 * is streamed and the connection dropped as soon as it passes its bound, so a device or server
 * answering hundreds of megabytes costs at most {@link MAX_SOURCE_ANSWER_BYTES} of memory, and a
 * source larger than `maxBytes` is refused. A WebDriver error answer is thrown as an Error named
 * after its `error` code (`invalid session id` …), as the WebDriver client does.
 */
export async function readBoundedPageSource(options: BoundedPageSourceOptions): Promise<string> {
  const maxBytes = Math.min(options.maxBytes ?? MAX_DUMP_BYTES, MAX_DUMP_BYTES);
  const answerBytes = Math.ceil((MAX_SOURCE_ANSWER_BYTES * maxBytes) / MAX_DUMP_BYTES);
  const base = options.serverUrl.replace(/\/+$/, '');
  const url = `${base}/session/${encodeURIComponent(options.sessionId)}/source`;
  const response = await fetch(url, {
    headers: { accept: 'application/json' },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const body = response.body;
  const chunks: Buffer[] = [];
  let size = 0;
  if (body !== null) {
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > answerBytes) throw tooLarge(`more than ${answerBytes} bytes of answer`);
        chunks.push(Buffer.from(value));
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }
  let answer: unknown;
  try {
    answer = JSON.parse(Buffer.concat(chunks, size).toString('utf8'));
  } catch {
    throw new Error(
      `Appium answered the page source with something other than JSON (HTTP ${response.status})`,
    );
  }
  const value = (answer as { value?: unknown } | null)?.value;
  if (!response.ok || typeof value !== 'string') {
    const failure = (value ?? {}) as { error?: unknown; message?: unknown };
    const error = new Error(
      typeof failure.message === 'string' ? failure.message : `HTTP ${response.status}`,
    );
    error.name = typeof failure.error === 'string' ? failure.error : 'WebDriverError';
    throw error;
  }
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > maxBytes) throw tooLarge(`${bytes} bytes`);
  return value;
}

function tooLarge(what: string): AndroidDeviceError {
  return new AndroidDeviceError(
    ToolErrorCode.EXECUTION_FAILED,
    `Appium's page source of this screen is too large (${what}; a real screen's is well under 1 MiB, the bound is ${MAX_DUMP_BYTES} bytes). Nothing of it was read.`,
    {
      hint: 'The app shows an unusual (or hostile) screen: leave it (app_force_stop, or app_launch another app), or read it with screenshot instead.',
    },
  );
}
