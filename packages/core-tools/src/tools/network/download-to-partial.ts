// The streaming half of download_file: a (ranged) request written into the part file, with
// progress, a stall timer, the size limit and resumption.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import {
  failureResult,
  type ToolContext,
  ToolError,
  ToolErrorCode,
  type ToolFailure,
} from '@toolsys/core-tool-registry';
import { type GuardedResponse, guardedRequest } from '@toolsys/platform';
import { httpStatusFailure, type NetworkSettings } from './shared.js';

const PROGRESS_STEP_BYTES = 256 * 1024;

/** How a download into the part file ended. */
export type DownloadOutcome =
  | { ok: true; bytes: number; resumedFrom: number; contentType: string }
  /** `discard`: the part file holds nothing worth resuming from. */
  | { ok: false; failure: ToolFailure; discard?: boolean };

const TOO_LARGE = { retryable: false, hint: 'Download a smaller file.' };
const RESUME_HINT =
  'Call download_file again with the same arguments: it resumes where it stopped.';

/** A download that stopped without the whole file: EXECUTION_FAILED with this message. */
function stopped(
  message: string,
  options: Parameters<typeof failureResult>[2],
): Extract<DownloadOutcome, { ok: false }> {
  return { ok: false, failure: failureResult(ToolErrorCode.EXECUTION_FAILED, message, options) };
}

/**
 * Downloads `url` into the part file at `partial`, resuming from its size with a Range request;
 * `path` is the destination as the caller named it, for messages.
 */
export async function downloadToPartial(
  settings: NetworkSettings,
  context: ToolContext,
  url: string,
  partial: string,
  path: string,
): Promise<DownloadOutcome> {
  let startAt = (await stat(partial).catch(() => undefined))?.size ?? 0;
  const idle = new AbortController();
  const signal = AbortSignal.any([context.signal, idle.signal]);
  let idleTimer: NodeJS.Timeout | undefined;
  const touch = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(
      () =>
        idle.abort(
          new ToolError(
            ToolErrorCode.TIMEOUT,
            `The download of ${path} stalled for ${settings.requestTimeoutMs} ms.`,
            { hint: 'Call download_file again with the same arguments to resume.' },
          ),
        ),
      settings.requestTimeoutMs,
    );
  };
  try {
    touch();
    let response = await requestRange(settings, url, startAt, signal);
    if (response.status === 416 && startAt > 0) {
      const total = parseContentRangeTotal(response.headers['content-range']);
      response.body.resume();
      if (total === startAt) {
        return {
          ok: true,
          bytes: startAt,
          resumedFrom: startAt,
          contentType: String(response.headers['content-type'] ?? ''),
        };
      }
      // Start over: the write stream below truncates the part ('w' when not appending).
      startAt = 0;
      response = await requestRange(settings, url, 0, signal);
    }
    if (response.status >= 400) {
      response.body.resume();
      return { ok: false, failure: httpStatusFailure(response, 'download_file') };
    }
    if (response.status !== 200 && response.status !== 206) {
      response.body.resume();
      return stopped(`The server answered HTTP ${response.status} instead of the file.`, {
        retryable: false,
        hint: 'Check the URL.',
      });
    }
    const appending = response.status === 206 && startAt > 0;
    const resumedFrom = appending ? startAt : 0;
    const length = Number(response.headers['content-length']);
    const total = Number.isFinite(length) && length >= 0 ? resumedFrom + length : undefined;
    if (total !== undefined && total > settings.maxDownloadBytes) {
      response.body.destroy();
      return stopped(
        `The file is ${total} bytes, more than this deployment's download limit of ${settings.maxDownloadBytes} bytes.`,
        TOO_LARGE,
      );
    }
    const output = createWriteStream(partial, { flags: appending ? 'a' : 'w' });
    let bytes = resumedFrom;
    let reported = bytes;
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        touch();
        bytes += chunk.length;
        if (bytes > settings.maxDownloadBytes) {
          response.body.destroy();
          output.destroy();
          return {
            ...stopped(
              `The file is larger than this deployment's download limit of ${settings.maxDownloadBytes} bytes; the partial file was discarded.`,
              TOO_LARGE,
            ),
            discard: true,
          };
        }
        if (!output.write(chunk)) await once(output, 'drain');
        if (bytes - reported >= PROGRESS_STEP_BYTES) {
          reported = bytes;
          context.emit({
            type: 'progress',
            progress: bytes,
            ...(total !== undefined ? { total } : {}),
            message: `${bytes} bytes of ${path}`,
          });
        }
      }
    } catch (error) {
      await closeStream(output);
      if (context.signal.aborted) throw context.signal.reason ?? error;
      if (idle.signal.aborted) throw idle.signal.reason;
      return stopped(
        `The download of ${path} was interrupted after ${bytes} bytes (${(error as NodeJS.ErrnoException).code ?? 'connection lost'}).`,
        { hint: RESUME_HINT, details: { bytes } },
      );
    }
    await closeStream(output);
    if (total !== undefined && bytes < total) {
      return stopped(`The download of ${path} ended early: ${bytes} of ${total} bytes.`, {
        hint: RESUME_HINT,
        details: { bytes, total },
      });
    }
    context.emit({ type: 'progress', progress: bytes, total: bytes, message: `done: ${path}` });
    return {
      ok: true,
      bytes,
      resumedFrom,
      contentType: String(response.headers['content-type'] ?? ''),
    };
  } finally {
    clearTimeout(idleTimer);
  }
}

function requestRange(
  settings: NetworkSettings,
  url: string,
  startAt: number,
  signal: AbortSignal,
): Promise<GuardedResponse> {
  return guardedRequest({
    url,
    guard: settings.guard,
    signal,
    headers: {
      'user-agent': settings.userAgent,
      'accept-encoding': 'identity',
      ...(startAt > 0 ? { range: `bytes=${startAt}-` } : {}),
    },
  });
}

function parseContentRangeTotal(header: string | undefined): number | undefined {
  const match = /\/(\d+)\s*$/.exec(header ?? '');
  return match ? Number(match[1]) : undefined;
}

function closeStream(stream: ReturnType<typeof createWriteStream>): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    if (stream.closed) {
      resolvePromise();
      return;
    }
    stream.once('error', reject);
    stream.end(() => resolvePromise());
  });
}
