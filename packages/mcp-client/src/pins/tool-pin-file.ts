// The file of one server's pins: the tools as approved, and the quarantined tools as last seen.
import { join } from 'node:path';
import { readPrivateJson, writePrivateJson } from '../private-file.js';

/** The pinned part of a tool (see `pinnedShape`). */
export interface PinnedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

/** One pinned (or pending) tool: its hash and the shape hashed. */
export interface PinEntry {
  readonly hash: string;
  readonly tool: PinnedTool;
}

/** What one server's pin file holds. */
export interface ServerPins {
  /** The tools as the user approved them, by name. */
  readonly approved: Readonly<Record<string, PinEntry>>;
  /** Tools quarantined (changed or new) as last listed, by name. */
  readonly pending?: Readonly<Record<string, PinEntry>>;
}

/** One server's pin file (JSON, mode 0600). */
export class ToolPinFile {
  /** The file. */
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /** The file of `server` under `directory` (the name encoded: it cannot reach outside). */
  static under(directory: string, server: string): ToolPinFile {
    return new ToolPinFile(join(directory, `${encodeURIComponent(server)}.json`));
  }

  /**
   * The pins; undefined when nothing was pinned yet. A damaged file approves nothing (every tool
   * is then quarantined), never everything.
   */
  async load(): Promise<ServerPins | undefined> {
    const value = await readPrivateJson(this.path);
    if (value === undefined) return undefined;
    if (!isEntries(value.approved)) return { approved: {} };
    return {
      approved: value.approved,
      ...(isEntries(value.pending) ? { pending: value.pending } : {}),
    };
  }

  /** Replaces the pins. */
  async save(pins: ServerPins): Promise<void> {
    await writePrivateJson(this.path, pins);
  }
}

function isEntries(value: unknown): value is Record<string, PinEntry> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.values(value).every(
    (entry) =>
      entry !== null &&
      typeof entry === 'object' &&
      typeof (entry as PinEntry).hash === 'string' &&
      typeof (entry as PinEntry).tool === 'object',
  );
}
