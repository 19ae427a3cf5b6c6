/**
 * The metadata the real tools of a few well-known ids declare, for the kernel's own tests that
 * stand in for those tools. Not part of the `testing` entry.
 */
import { ToolHints, type ToolMetadataInput } from '../contract/tool-metadata.js';

/** What the real tools of these ids declare; other ids are plain utilities. */
export const FIXTURE_METADATA: Readonly<Record<string, ToolMetadataInput>> = {
  write_file: {
    category: 'file',
    risk: 'MEDIUM',
    annotations: { ...ToolHints.destructive, idempotentHint: true },
  },
  calculate: { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly },
  read_file: { category: 'file', risk: 'LOW', annotations: ToolHints.readOnly },
  shell_execute: {
    category: 'shell',
    risk: 'HIGH',
    annotations: { ...ToolHints.destructive, openWorldHint: true, sensitiveAction: true },
  },
  delete_file: {
    category: 'file',
    risk: 'HIGH',
    annotations: { ...ToolHints.destructive, idempotentHint: true, sensitiveAction: true },
  },
};
