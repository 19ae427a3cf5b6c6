import { describe, expect, it } from 'vitest';
import {
  cautiousHints,
  isRetrySafe,
  maxRisk,
  resolveMetadata,
  riskFromHints,
  ToolHints,
} from './tool-metadata.js';

describe('ToolHints presets', () => {
  it('read-only is idempotent and destroys nothing', () => {
    expect(ToolHints.readOnly.destructiveHint).toBe(false);
    expect(isRetrySafe(ToolHints.readOnly)).toBe(true);
  });

  it('mutating and destructive tools are not retry-safe unless they say they are idempotent', () => {
    expect(isRetrySafe(ToolHints.mutating)).toBe(false);
    expect(isRetrySafe(ToolHints.destructive)).toBe(false);
    expect(isRetrySafe({ ...ToolHints.destructive, idempotentHint: true })).toBe(true);
  });
});

describe('resolveMetadata', () => {
  it('keeps what the tool declares', () => {
    const metadata = resolveMetadata({
      category: 'file',
      risk: 'MEDIUM',
      tags: ['write'],
      annotations: { ...ToolHints.mutating, idempotentHint: true },
    });
    expect(metadata).toEqual({
      category: 'file',
      risk: 'MEDIUM',
      tags: ['write'],
      annotations: { ...ToolHints.mutating, idempotentHint: true },
    });
  });

  it('defaults tags to none', () => {
    expect(
      resolveMetadata({ category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly }).tags,
    ).toEqual([]);
  });
});

describe('tools that declare hints but no risk (remote MCP servers, plugins)', () => {
  it('no hints at all is MEDIUM: asked for under the default policy, never LOW', () => {
    expect(riskFromHints(undefined)).toBe('MEDIUM');
    expect(riskFromHints({})).toBe('MEDIUM');
  });

  it('read-only and closed-world is LOW; read-only on the open world is MEDIUM', () => {
    expect(riskFromHints({ readOnlyHint: true, openWorldHint: false })).toBe('LOW');
    expect(riskFromHints({ readOnlyHint: true })).toBe('LOW');
    expect(riskFromHints({ readOnlyHint: true, openWorldHint: true })).toBe('MEDIUM');
  });

  it('destructive is HIGH, even when it also claims to be read-only', () => {
    expect(riskFromHints({ destructiveHint: true })).toBe('HIGH');
    expect(riskFromHints({ destructiveHint: true, readOnlyHint: true })).toBe('HIGH');
  });

  it('missing hints take the cautious values of the MCP specification', () => {
    expect(cautiousHints(undefined)).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
      sensitiveAction: false,
    });
    expect(cautiousHints({ readOnlyHint: true })).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
      sensitiveAction: false,
    });
  });

  it('maxRisk picks the highest', () => {
    expect(maxRisk(['LOW', 'HIGH', 'MEDIUM'])).toBe('HIGH');
    expect(maxRisk([])).toBe('LOW');
  });
});
