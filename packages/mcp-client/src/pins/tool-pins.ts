// Pinning a remote server's tools: what the user approved (each tool's name, description, input
// and output schemas and annotations) is hashed and kept per server under the data directory. A
// later listing is compared with it: a changed or a new tool is quarantined (not listed, not
// callable) until approved again; a removed tool simply disappears.
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import { type PinnedTool, ToolPinFile } from './tool-pin-file.js';

/** The part of a tool that is pinned: everything the model reads as trusted tool metadata. */
export function pinnedShape(tool: Tool): PinnedTool {
  const shape: PinnedTool = { name: tool.name, inputSchema: tool.inputSchema };
  if (tool.title !== undefined) shape.title = tool.title;
  if (tool.description !== undefined) shape.description = tool.description;
  if (tool.outputSchema !== undefined) shape.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) shape.annotations = tool.annotations;
  return shape;
}

/** JSON with object keys sorted at every level: the same tool hashes the same however sent. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return sorted;
}

/** The SHA-256 of a tool's pinned shape (hex). */
export function toolPinHash(tool: Tool): string {
  return createHash('sha256')
    .update(canonicalJson(pinnedShape(tool)))
    .digest('hex');
}

/** Why a listed tool is held back. */
export type QuarantineReason = 'changed' | 'new';

/** A tool held back until the user approves it. */
export interface QuarantinedTool {
  /** Its name. */
  readonly name: string;
  /** `changed`: it differs from what was approved; `new`: it was never approved. */
  readonly reason: QuarantineReason;
}

/** A listing split by the pins. */
export interface PinnedListing {
  /** Tools as approved: listed and callable. */
  readonly allowed: readonly Tool[];
  /** Tools changed since approval, or new: neither listed nor callable. */
  readonly quarantined: readonly QuarantinedTool[];
}

/**
 * The pins of a deployment's servers, one file per server under a directory (`<dataDir>/mcp-pins`).
 * A server with no pins yet has its first listing pinned as it is (the user approved the server,
 * or it is the deployment's own); after that only {@link approve} changes what is pinned.
 */
export class ToolPins {
  readonly #directory: string;

  /** `directory`: where the pin files are kept. */
  constructor(directory: string) {
    this.#directory = directory;
  }

  /** The file of `server`'s pins. */
  file(server: string): ToolPinFile {
    return ToolPinFile.under(this.#directory, server);
  }

  /**
   * Compares a listing with `server`'s pins, pinning it whole when nothing was pinned before, and
   * records the quarantined tools as they were seen (for `toolsys mcp diff`).
   */
  async check(server: string, tools: readonly Tool[]): Promise<PinnedListing> {
    const file = this.file(server);
    const pins = await file.load();
    if (pins === undefined) {
      await file.save({ approved: Object.fromEntries(tools.map((tool) => pinEntry(tool))) });
      return { allowed: tools, quarantined: [] };
    }
    const allowed: Tool[] = [];
    const quarantined: QuarantinedTool[] = [];
    const pending: Record<string, { hash: string; tool: PinnedTool }> = {};
    for (const tool of tools) {
      const approved = pins.approved[tool.name];
      const hash = toolPinHash(tool);
      if (approved?.hash === hash) {
        allowed.push(tool);
        continue;
      }
      quarantined.push({ name: tool.name, reason: approved === undefined ? 'new' : 'changed' });
      pending[tool.name] = { hash, tool: pinnedShape(tool) };
    }
    if (canonicalJson(pending) !== canonicalJson(pins.pending ?? {})) {
      await file.save({ approved: pins.approved, pending });
    }
    return { allowed, quarantined };
  }

  /**
   * Approves `server`'s quarantined tools as last seen (`names`: only these), so the next
   * listing lists them. Returns the names approved.
   */
  async approve(server: string, names?: readonly string[]): Promise<string[]> {
    const file = this.file(server);
    const pins = await file.load();
    if (pins === undefined) return [];
    const pending = { ...(pins.pending ?? {}) };
    const approved = { ...pins.approved };
    const done: string[] = [];
    for (const [name, entry] of Object.entries(pending)) {
      if (names !== undefined && !names.includes(name)) continue;
      approved[name] = entry;
      delete pending[name];
      done.push(name);
    }
    await file.save({ approved, pending });
    return done;
  }
}

function pinEntry(tool: Tool): [string, { hash: string; tool: PinnedTool }] {
  return [tool.name, { hash: toolPinHash(tool), tool: pinnedShape(tool) }];
}
