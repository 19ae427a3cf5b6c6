import { stat } from 'node:fs/promises';
import type { Download } from 'playwright-core';

/** How much a session may download. Every cap refuses with a reason the model reads. */
export interface DownloadLimits {
  /** Most bytes of one download (`maxDownloadBytes`). Default 100 MiB. */
  readonly maxBytes: number;
  /** Most downloads a session may start (`maxDownloads`); later ones are refused. Default 20. */
  readonly maxCount: number;
  /** Most bytes all downloads of a session may total (`maxDownloadTotalBytes`). Default 250 MiB. */
  readonly maxTotalBytes: number;
}

/** The caps used when none are configured. */
export const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = {
  maxBytes: 100 * 1024 * 1024,
  maxCount: 20,
  maxTotalBytes: 250 * 1024 * 1024,
};

/** How often the size of a running download is read, in ms. */
const WATCH_INTERVAL_MS = 50;

/**
 * Where the browser writes a download while it runs: Playwright keeps the file of a local
 * browser at `<downloads temp folder>/<uuid>` (Chromium writes `<uuid>.crdownload` until it is
 * done), known to its client only through the artifact's initializer. Undefined when that
 * internal is missing (another Playwright version, a remote browser): the download is then
 * bounded only when it is copied into the workspace.
 */
function browserFileOf(download: Download): string | undefined {
  const artifact = (
    download as unknown as { _artifact?: { _initializer?: { absolutePath?: unknown } } }
  )._artifact;
  const path = artifact?._initializer?.absolutePath;
  return typeof path === 'string' ? path : undefined;
}

/**
 * Reads the size of a running download every {@link WATCH_INTERVAL_MS} and calls `onOver` once
 * (and stops) when it passes `limit()`; `onSize` gets every size read. Returns a function that
 * stops the watch. The caller cancels the download in `onOver`, so the browser stops receiving
 * it within about one interval of the cap.
 */
export function watchDownloadSize(
  download: Download,
  options: {
    limit: () => number;
    onSize: (bytes: number) => void;
    onOver: (bytes: number) => void;
  },
): () => void {
  const path = browserFileOf(download);
  if (path === undefined) return () => undefined;
  let stopped = false;
  let reading = false;
  const timer = setInterval(() => {
    if (reading || stopped) return;
    reading = true;
    void stat(`${path}.crdownload`)
      .catch(() => stat(path))
      .then(
        (stats) => {
          if (stopped) return;
          options.onSize(stats.size);
          if (stats.size > options.limit()) {
            stop();
            options.onOver(stats.size);
          }
        },
        () => undefined,
      )
      .finally(() => {
        reading = false;
      });
  }, WATCH_INTERVAL_MS);
  timer.unref();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  return stop;
}
