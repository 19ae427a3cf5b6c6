import { describe, expect, it } from 'vitest';
import { sessionDigest } from './session-digest.js';

describe('sessionDigest', () => {
  it('is the same for one id and differs between ids, and never contains the id', () => {
    const id = 'mcp-b.6f1c2d3e-4a5b-4c6d-8e7f-901234567890';
    expect(sessionDigest(id)).toBe(sessionDigest(id));
    expect(sessionDigest(id)).not.toBe(sessionDigest(`${id}x`));
    expect(sessionDigest(id)).toMatch(/^[0-9a-f]{32}$/);
    expect(sessionDigest(id)).not.toContain('6f1c2d3e');
  });
});
