import { isRetrySafe, resolveMetadata } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { describeRemote, toRegistryId } from './mcp-tool-registrar.js';

const readOnlyTool = {
  name: 'read',
  inputSchema: { type: 'object' as const },
  annotations: { readOnlyHint: true, idempotentHint: true },
};

describe('toRegistryId', () => {
  it('keeps allowed characters and maps the others to "_"', () => {
    expect(toRegistryId('everything', 'get-sum')).toBe('mcp__everything__get-sum');
    expect(toRegistryId('my.server', 'tools/list v2')).toBe('mcp__my_server__tools_list_v2');
    expect(toRegistryId('a', 'file.read')).toBe('mcp__a__file.read');
  });
});

describe('describeRemote', () => {
  it('keeps an untrusted read-only tool at MEDIUM risk and not retry-safe', () => {
    const { metadata, runPolicy } = describeRemote(readOnlyTool, false);
    const resolved = resolveMetadata(metadata);
    expect(resolved.risk).toBe('MEDIUM');
    expect(isRetrySafe(resolved.annotations)).toBe(false);
    expect(runPolicy.maxRetries).toBe(0);
  });

  it('believes a trusted server: read-only is LOW risk and retry-safe', () => {
    const { metadata, runPolicy } = describeRemote(readOnlyTool, true);
    const resolved = resolveMetadata(metadata);
    expect(resolved.risk).toBe('LOW');
    expect(isRetrySafe(resolved.annotations)).toBe(true);
    expect(runPolicy.maxRetries).toBeGreaterThan(0);
  });

  it('raises an explicitly destructive tool to HIGH, trusted or not', () => {
    const tool = { ...readOnlyTool, annotations: { destructiveHint: true } };
    expect(describeRemote(tool, false).metadata.risk).toBe('HIGH');
    expect(describeRemote(tool, true).metadata.risk).toBe('HIGH');
  });

  it('keeps a tool that declares no hints at MEDIUM, trusted or not, and never retries it', () => {
    const tool = { name: 'plain', inputSchema: { type: 'object' as const } };
    for (const trusted of [false, true]) {
      const { metadata, runPolicy } = describeRemote(tool, trusted);
      expect(metadata.risk).toBe('MEDIUM');
      expect(metadata.annotations).toEqual({
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
        sensitiveAction: false,
      });
      expect(runPolicy.maxRetries).toBe(0);
    }
  });

  it('keeps a trusted read-only tool that reaches the open world at MEDIUM', () => {
    const tool = { ...readOnlyTool, annotations: { readOnlyHint: true, openWorldHint: true } };
    expect(describeRemote(tool, true).metadata.risk).toBe('MEDIUM');
  });
});
