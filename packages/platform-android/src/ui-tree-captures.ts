import { createHash } from 'node:crypto';
import { RecentCaptures } from '@toolsys/core-tool-registry/text';
import type { UiTreeLine } from './ui-tree-text.js';

/** One rendered tree a cut ui_dump page was taken from. */
export interface UiTreeCapture {
  /** The screen token: a hash of the lines, see {@link screenTokenOf}. */
  readonly token: string;
  /** Whether the lines carry bounds (`bounds: true`). */
  readonly bounds: boolean;
  /** The rendered lines. */
  readonly lines: readonly UiTreeLine[];
}

/** Options for {@link UiTreeCaptures}. */
export interface UiTreeCapturesOptions {
  /** Captures kept per device, newest first. Default 4. */
  readonly perDevice?: number;
  /** Devices kept; the one used least recently is dropped first. Default 8. */
  readonly devices?: number;
}

/**
 * The screen token of a rendered tree: 8 hex digits of the SHA-256 of its lines. Equal tokens
 * mean equal lines (short of a one-in-four-billion chance), so a page cut at a cursor of one
 * reads the same as one cut from the other.
 */
export function screenTokenOf(lines: readonly UiTreeLine[]): string {
  const hash = createHash('sha256');
  for (const line of lines) hash.update(line.text).update('\n');
  return hash.digest('hex').slice(0, 8);
}

/**
 * The latest trees cut into pages, per device, in memory and bounded: a later page of ui_dump is
 * checked against the capture its cursor came from. Lost on restart; pages then fall back to
 * comparing screen tokens.
 */
export class UiTreeCaptures {
  readonly #captures: RecentCaptures<UiTreeCapture>;

  constructor(options: UiTreeCapturesOptions = {}) {
    this.#captures = new RecentCaptures({
      tokenOf: (capture) => capture.token,
      perKey: options.perDevice ?? 4,
      keys: options.devices ?? 8,
    });
  }

  /** Keeps a capture of a device as its newest, dropping the oldest past the bounds. */
  keep(serial: string, capture: UiTreeCapture): void {
    this.#captures.keep(serial, capture);
  }

  /** The capture of a device with this token, if still kept. */
  find(serial: string, token: string): UiTreeCapture | undefined {
    return this.#captures.find(serial, token);
  }

  /** The newest capture of a device rendered with or without bounds, if any. */
  latest(serial: string, bounds: boolean): UiTreeCapture | undefined {
    return this.#captures.latest(serial, (capture) => capture.bounds === bounds);
  }
}
